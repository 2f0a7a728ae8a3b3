// The layers of src/, bottom to top: model → engine → {source, report, cluster, policies} → fix → lint → {webhook, lsp} → cli;
// inside src/source/, the rooms parse → read → origin → render, and read-inputs.ts above them (src/source/README.md).
// A module imports only from its own layer and those below; a rule imports only src/rule-api.ts. src/lint/ is the one
// way from inputs to located findings: the deliveries above it (webhook, lsp, cli) never run the engine themselves.
const layer = (name, allowed) => ({
  name: `${name}-imports-only-below`,
  comment: `src/${name} may import only from ${allowed.join(', ')}`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^(src|rules)/', pathNot: allowed.map((other) => `^src/${other}/`) },
});

/** A room of src/source/: it imports the model, the rooms named, and the leaf modules of src/source/ named. */
const room = (name, rooms, leaves = []) => ({
  name: `source-${name}-imports-only-below`,
  comment: `src/source/${name}/ may import only from src/model/${rooms.map((other) => `, src/source/${other}/`).join('')}${leaves.map((leaf) => `, src/source/${leaf}.ts`).join('')}`,
  severity: 'error',
  from: { path: `^src/source/${name}/` },
  to: {
    path: '^(src|rules)/',
    pathNot: ['^src/model/', ...rooms.map((other) => `^src/source/${other}/`), ...leaves.map((leaf) => `^src/source/${leaf}\\.ts$`)],
  },
});

module.exports = {
  forbidden: [
    layer('model', ['model']),
    layer('engine', ['model', 'engine']),
    layer('source', ['model', 'source']),
    layer('report', ['model', 'engine', 'report']),
    layer('cluster', ['model', 'engine', 'cluster']),
    layer('policies', ['model', 'engine', 'policies']),
    // src/source/ in rooms, each importing only those below it: parse → read → origin → render.
    room('parse', ['parse']),
    room('read', ['parse', 'read']),
    room('origin', ['parse', 'read', 'origin']),
    room('render', ['parse', 'read', 'origin', 'render'], ['atomic-write', 'cache-directory']),
    {
      name: 'only-read-inputs-runs-renders',
      comment: 'src/source/read-inputs.ts is the one caller of render/: every surface renders through the session, in the sandbox',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/source/render/', '^src/source/read-inputs\\.ts$'] },
      to: { path: '^src/source/render/' },
    },
    {
      name: 'origin-is-renderings-own',
      comment: 'mapping rendered output back to what the user edits is part of rendering: only render/ uses origin/',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/source/(render|origin)/'] },
      to: { path: '^src/source/origin/' },
    },
    layer('fix', ['model', 'engine', 'source', 'fix']),
    layer('lint', ['model', 'engine', 'source', 'report', 'fix', 'lint']),
    layer('webhook', ['model', 'engine', 'report', 'cluster', 'lint', 'webhook']),
    layer('lsp', ['model', 'engine', 'source', 'report', 'fix', 'lint', 'lsp']),
    {
      name: 'only-the-lint-session-runs-the-engine',
      comment: 'the deliveries reach findings through src/lint/ (LintSession), never by calling Engine.lint themselves',
      severity: 'error',
      from: { path: '^src/(webhook|lsp|cli)/' },
      to: { path: '^src/engine/engine\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'rule-api-is-the-rules-only-door',
      comment: 'src/rule-api.ts re-exports the model and the rule contract, nothing above them',
      severity: 'error',
      from: { path: '^src/rule-api\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/model/', '^src/engine/'] },
    },
    {
      name: 'rules-import-only-the-rule-api',
      comment: 'a rule is one folder: it imports src/rule-api.ts and nothing else from src/',
      severity: 'error',
      from: { path: '^rules/[^/]+/' },
      to: { path: '^src/', pathNot: ['^src/rule-api\\.ts$'] },
    },
    {
      name: 'rules-do-not-import-each-other',
      severity: 'error',
      from: { path: '^rules/([^/]+)/' },
      to: { path: '^rules/', pathNot: ['^rules/$1/'] },
    },
    {
      name: 'only-the-cli-and-scripts-know-the-rule-list',
      comment: 'the engine, webhook and the rest receive the rules; they never import the registry',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/cli/'] },
      to: { path: '^rules/' },
    },
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
