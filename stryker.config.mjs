// Mutation testing of the rules, the model and the engine (npm run test:mutation): Stryker changes
// the TypeScript source one mutant at a time (all of them compiled once, as mutant schemata), builds
// with tsc, and runs the compiled test files that cover each mutant (node:test's TAP output).
// The test files are the fast, in-process suites that exercise rules, model and engine; the CLI,
// webhook and cluster suites run processes and servers, and would make a run take hours.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The sandbox lies inside the checkout, so the compiled tests find node_modules by walking up; the compiler is named by path.
const TSC = join(dirname(fileURLToPath(import.meta.url)), 'node_modules/typescript/bin/tsc');

export default {
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner'],
  mutate: ['rules/*/index.ts', 'src/model/**/*.ts', 'src/engine/**/*.ts'],
  buildCommand: `node ${TSC} -p tsconfig.json`,
  tap: {
    testFiles: [
      'dist/test/rule-fixtures.test.js',
      'dist/test/rule-registry.test.js',
      'dist/test/model.test.js',
      'dist/test/engine.test.js',
      'dist/test/timeline.test.js',
      'dist/test/fix.test.js',
      'dist/test/runtime-evidence.test.js',
      'dist/test/excluded-paths.test.js',
      'dist/test/small-parts.test.js',
    ],
  },
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 20000,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 85, low: 70, break: null },
  tempDirName: '.stryker-tmp',
};
