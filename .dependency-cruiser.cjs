// The layers of src/, bottom to top: model → engine → {source, report, cluster, policies} → fix → lint → {webhook, lsp} → cli.
// A module imports only from its own layer and those below; a rule imports only src/rule-api.ts. src/lint/ is the one
// way from inputs to located findings: the deliveries above it (webhook, lsp, cli) never run the engine themselves.
const layer = (name, allowed) => ({
  name: `${name}-imports-only-below`,
  comment: `src/${name} may import only from ${allowed.join(', ')}`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^(src|rules)/', pathNot: allowed.map((other) => `^src/${other}/`) },
});

module.exports = {
  forbidden: [
    layer('model', ['model']),
    layer('engine', ['model', 'engine']),
    layer('source', ['model', 'source']),
    layer('report', ['model', 'engine', 'report']),
    layer('cluster', ['model', 'engine', 'cluster']),
    layer('policies', ['model', 'engine', 'policies']),
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
