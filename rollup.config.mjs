// The CLI's start-up bundle (`npm run bundle`, after tsc): main and what it loads at start, joined by
// Rollup into a few modules in dist/src/bundle. Node's module loader, not the code, is what a small
// run's start-up spends its time on (resolving, reading and linking about 95 modules, 0.5 ms each);
// the lint path now loads 3. Commands, formatters and the fixer that load on demand stay chunks of
// their own, and packages stay in node_modules (external), each loaded where it was before.
// The bundle sits at the depth of the modules it holds (dist/src/<dir>/), so their paths relative to
// import.meta.url (package.json, the config schema, the rule docs) resolve as before.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const output = join(root, 'dist/src/bundle');
// Chunk names carry hashes: the last build's chunks would otherwise stay beside this one's (and be packed).
rmSync(output, { recursive: true, force: true });

export default {
  input: join(root, 'dist/src/cli/main.js'),
  // Bare specifiers are packages (and node: built-ins): loaded from node_modules, not bundled.
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  // main.js may export more than main (what its chunks share), so no separate facade module is made for it.
  preserveEntrySignatures: 'allow-extension',
  output: {
    dir: output,
    format: 'es',
    chunkFileNames: '[name]-[hash].js',
    // Merges chunks smaller than this into the chunks that load them, where that runs no code earlier
    // than it ran before: fewer modules on each path.
    experimentalMinChunkSize: 200_000,
  },
  // No tree-shaking: the bundle is the modules as tsc wrote them, joined, nothing evaluated or dropped.
  // Rollup's tree-shaking folds what it takes for constants, and it took the string '\uFEFF' for an
  // empty one: `let text = bom ? original.slice(1) : original` became `let text = original`, and
  // --fix wrote a UTF-16 file back with two byte-order marks (test/hostile-input.test.ts caught it).
  treeshake: false,
};
