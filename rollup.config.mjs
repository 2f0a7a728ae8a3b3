// The CLI's start-up bundle (`npm run bundle`, after tsc): main and what it loads at start, joined by
// Rollup into a few modules in dist/src/bundle. Node's module loader, not the code, is what a small
// run's start-up spends its time on (resolving, reading and linking about 95 modules, 0.5 ms each);
// the lint path now loads 3. Commands, formatters and the fixer that load on demand stay chunks of
// their own, and packages stay in node_modules (external), each loaded where it was before.
// The bundle sits at the depth of the modules it holds (dist/src/<dir>/), so their paths relative to
// import.meta.url (package.json, the config schema, the rule docs) resolve as before.
// The executable (dist/src/cli/bin.js) is rewritten in place the same way, with the one module it
// imports: it must stay apart from main, since it turns the compile cache on before main is compiled.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const output = join(root, 'dist/src/bundle');
const executable = join(root, 'dist/src/cli/bin.js');
// Chunk names carry hashes: the last build's chunks would otherwise stay beside this one's (and be packed).
rmSync(output, { recursive: true, force: true });

/**
 * Node's built-ins taken from the process, not imported as ES modules. An `import … from 'node:fs'`
 * makes Node build an ES module of all of node:fs, and reading every export runs every lazy one:
 * fs.promises, and with it streams, readline and file watchers; node:util's and node:net's the same.
 * That was 2-3 ms of a 57 ms lint of one small file, for code it never ran. `process.getBuiltinModule`
 * (Node 22.3) hands back the module as it is; on an older 22, the import, as before.
 */
function builtinsFromProcess() {
  return {
    name: 'builtins-from-process',
    renderChunk(code) {
      const replacements = [];
      for (const statement of this.parse(code).body) {
        if (statement.type !== 'ImportDeclaration' || !statement.source.value.startsWith('node:')) continue;
        replacements.push({ start: statement.start, end: statement.end, text: fromProcess(statement) });
      }
      let rewritten = code;
      for (const { start, end, text } of replacements.reverse()) rewritten = rewritten.slice(0, start) + text + rewritten.slice(end);
      return { code: rewritten, map: null };
    },
  };
}

/** The `const` that takes an import declaration's bindings from the process (none for `import 'node:…'`). */
function fromProcess(statement) {
  const id = JSON.stringify(statement.source.value);
  const named = statement.specifiers.filter((specifier) => specifier.type === 'ImportSpecifier');
  const whole = statement.specifiers.filter((specifier) => specifier.type !== 'ImportSpecifier');
  const declarations = [];
  if (named.length > 0) {
    const bindings = named.map(({ imported, local }) => (imported.name === local.name ? local.name : `${imported.name}: ${local.name}`));
    declarations.push(`const { ${bindings.join(', ')} } = process.getBuiltinModule?.(${id}) ?? (await import(${id}));`);
  }
  // A built-in's default export and its namespace both read as the module's exports.
  for (const { local } of whole) declarations.push(`const ${local.name} = process.getBuiltinModule?.(${id}) ?? (await import(${id})).default;`);
  return declarations.join('\n');
}

export default [
  {
    input: join(root, 'dist/src/cli/main.js'),
    // Bare specifiers are packages (and node: built-ins): loaded from node_modules, not bundled.
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    // main.js may export more than main (what its chunks share), so no separate facade module is made for it.
    preserveEntrySignatures: 'allow-extension',
    plugins: [builtinsFromProcess()],
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
  },
  {
    input: executable,
    // main is imported by a path held in a variable, so Rollup leaves it where it is, to load after.
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    plugins: [builtinsFromProcess()],
    output: { file: executable, format: 'es' },
    treeshake: false,
  },
];
