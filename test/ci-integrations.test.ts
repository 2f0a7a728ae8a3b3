// The GitHub Action (action.yml) and the GitLab CI/CD component (templates/probe-lint.yml), run by
// the real tools offline: nektos/act in self-hosted mode (no Docker) runs the composite action with
// real GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, used as users write it (`probe-lint/probe-lint@v1`,
// resolved locally); gitlab-ci-local runs the component's job with the shell executor, included as
// `component:` from this project at HEAD (GitLab's way of testing a component in its own project).
// What each gives must be what the CLI gives for the same input, and no input may become an option
// or shell text.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { jobSummary } from '../scripts/action/summary.js';
import { podYaml, ROOT, runCli } from './helpers.js';

const ACT_VERSION = 'v0.2.89';
const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'probe-lint');
const ACT = join(CACHE, `act-${ACT_VERSION}`, 'act');
const GITLAB_CI_LOCAL = join(ROOT, 'tools/node_modules/.bin/gitlab-ci-local');
/** The Node.js the jobs run on: the one running the tests (22 or later). */
const NODE_DIR = dirname(process.execPath);

const unavailable = !existsSync(ACT)
  ? `act ${ACT_VERSION} is not built (scripts/build-act.sh builds it into ${dirname(ACT)})`
  : spawnSync('sh', ['-c', 'command -v rsync'], { stdio: 'ignore' }).status !== 0
    ? 'rsync is not installed (gitlab-ci-local copies the project with it; Debian: apt-get install rsync)'
    : undefined;
if (unavailable !== undefined && process.env.CI !== undefined) throw new Error(`the CI integration tests cannot run: ${unavailable}`);

/** A directory of manifests: examples/ (errors, warnings, infos), or one with a single info. */
function manifests(kind: 'examples' | 'info-only', into: string): void {
  mkdirSync(into, { recursive: true });
  if (kind === 'examples') {
    for (const file of readdirSync(join(ROOT, 'examples')).filter((name) => name.endsWith('.yaml'))) cpSync(join(ROOT, 'examples', file), join(into, file));
    return;
  }
  writeFileSync(
    join(into, 'worker.yaml'),
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: worker}\nspec:\n  selector: {matchLabels: {app: worker}}\n  template:\n    metadata: {labels: {app: worker}}\n' +
      '    spec:\n      containers:\n        - name: worker\n          image: worker:1\n          livenessProbe:\n            tcpSocket: {port: 9000}\n',
  );
}

/** A git repository at `directory` with `files`, committed: act and gitlab-ci-local both read one. */
function gitRepository(directory: string, origin?: string): string {
  const git = (...args: string[]) => {
    const run = spawnSync('git', ['-c', 'user.email=ci@probe-lint.test', '-c', 'user.name=ci', '-c', 'init.defaultBranch=main', ...args], {
      cwd: directory,
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    return run.stdout.trim();
  };
  git('init', '-q');
  if (origin !== undefined) git('remote', 'add', 'origin', origin);
  git('add', '-A');
  git('commit', '-qm', 'test');
  return git('rev-parse', 'HEAD');
}

/** The CLI's own report of the same input, run where the job runs. */
/** The ids of the HTML report's findings (their fingerprints), in page order. */
function articleIds(html: string): string[] {
  return [...html.matchAll(/<article class="finding" id="([0-9a-f]+)"/g)].map((match) => match[1]!);
}

function cli(cwd: string, args: string[], env: Record<string, string> = {}) {
  return runCli(args, { cwd, env });
}

describe('the GitHub Action, run by act', { skip: unavailable }, () => {
  /** The action as a release ships it: action.yml and its scripts, with the build and its dependencies. */
  const actionDirectory = (() => {
    let made: string | undefined;
    return () => {
      if (made !== undefined) return made;
      made = mkdtempSync(join(tmpdir(), 'probe-lint-action-'));
      cpSync(join(ROOT, 'action.yml'), join(made, 'action.yml'));
      cpSync(join(ROOT, 'scripts/action'), join(made, 'scripts/action'), { recursive: true });
      for (const shipped of ['dist', 'rules', 'schema', 'node_modules', 'package.json']) symlinkSync(join(ROOT, shipped), join(made, shipped));
      return made;
    };
  })();

  interface ActRun {
    log: string;
    outputs: { errors: string; warnings: string; infos: string; sarif: string; html: string; outcome: string };
    workspace: string;
    summary: string;
    annotations: string[];
    sha: string;
  }

  /** Runs a workflow whose second step is the action with `inputs`, on a copy of `source`. */
  function runAction(source: string, inputs: Record<string, string>, options: { nodeDirectory?: string; pullRequest?: object } = {}): ActRun {
    const work = mkdtempSync(join(tmpdir(), 'probe-lint-act-'));
    const repository = join(work, 'repository');
    const out = join(work, 'out');
    mkdirSync(join(repository, '.github/workflows'), { recursive: true });
    mkdirSync(join(out, 'workspace'), { recursive: true });
    const workflow = [
      'name: probes',
      `on: ${options.pullRequest === undefined ? 'push' : 'pull_request'}`,
      'jobs:',
      '  lint:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      // What actions/setup-node and actions/checkout would do, offline.
      '      - run: echo "$NODE_DIR" >> "$GITHUB_PATH"',
      '      - run: cp -R "$SOURCE/." "$GITHUB_WORKSPACE/"',
      '      - uses: probe-lint/probe-lint@v1',
      '        id: probe-lint',
      '        continue-on-error: true',
      '        with:',
      ...Object.entries(inputs).map(([name, value]) => `          ${name}: ${JSON.stringify(value)}`),
      '      - if: always()',
      '        env:',
      ...['errors', 'warnings', 'infos', 'sarif', 'html'].map((name) => `          OUTPUT_${name.toUpperCase()}: \${{ steps.probe-lint.outputs.${name} }}`),
      '          OUTCOME: ${{ steps.probe-lint.outcome }}',
      '        run: |',
      `          "$REAL_NODE" -e 'const e = process.env; console.log(JSON.stringify({ errors: e.OUTPUT_ERRORS, warnings: e.OUTPUT_WARNINGS, infos: e.OUTPUT_INFOS, sarif: e.OUTPUT_SARIF, html: e.OUTPUT_HTML, outcome: e.OUTCOME }))' > "$OUT/outputs.json"`,
      '          cp -R "$GITHUB_WORKSPACE/." "$OUT/workspace/"',
    ].join('\n');
    writeFileSync(join(repository, '.github/workflows/probes.yml'), `${workflow}\n`);
    const sha = gitRepository(repository);
    const event = join(work, 'event.json');
    if (options.pullRequest !== undefined) writeFileSync(event, JSON.stringify({ pull_request: options.pullRequest }));
    const run = spawnSync(
      ACT,
      [
        ...(options.pullRequest === undefined ? ['push'] : ['pull_request', '-e', event]),
        '-P',
        'ubuntu-latest=-self-hosted',
        '--local-repository',
        `probe-lint/probe-lint@v1=${actionDirectory()}`,
        '--env',
        `SOURCE=${source}`,
        '--env',
        `OUT=${out}`,
        '--env',
        `NODE_DIR=${options.nodeDirectory ?? NODE_DIR}`,
        '--env',
        `REAL_NODE=${process.execPath}`,
        '-W',
        '.github/workflows/probes.yml',
      ],
      // act keeps its workspaces under the user's cache: here, the test's own.
      { cwd: repository, encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: join(work, 'cache'), NO_COLOR: '1' }, timeout: 300_000 },
    );
    assert.equal(run.status, 0, `act: ${run.stdout}\n${run.stderr}`);
    const log = run.stdout;
    return {
      log,
      outputs: JSON.parse(readFileSync(join(out, 'outputs.json'), 'utf8')),
      workspace: join(out, 'workspace'),
      summary: summaryOf(log),
      annotations: log
        .split('\n')
        .flatMap((line) => /::(?:error|warning|notice) [^]*$/.exec(line)?.[0] ?? [])
        .map((line) => line.trimEnd()),
      sha,
    };
  }

  /** What act shows of the step summary: the text after "Summary - " up to its next line of its own. */
  function summaryOf(log: string): string {
    const lines = log.split('\n');
    const start = lines.findIndex((line) => line.includes('⚙  Summary - '));
    if (start === -1) return '';
    const rest = lines.slice(start + 1);
    const end = rest.findIndex((line) => line.startsWith('[probes/lint]'));
    return [lines[start]!.slice(lines[start]!.indexOf('Summary - ') + 'Summary - '.length), ...rest.slice(0, end)].join('\n').trim();
  }

  const source = (kind: 'examples' | 'info-only') => {
    const directory = mkdtempSync(join(tmpdir(), 'probe-lint-act-source-'));
    manifests(kind, join(directory, 'manifests'));
    return directory;
  };

  it('gives the annotations, the SARIF, the job summary, the HTML report and the counts of one run, each as the CLI gives them, and fails on errors', () => {
    const examples = source('examples');
    const run = runAction(examples, { path: 'manifests', 'fail-on': 'error', html: 'probe-lint.html' });
    assert.equal(run.outputs.outcome, 'failure');
    const json = JSON.parse(cli(examples, ['manifests', '--format', 'json']).stdout);
    assert.deepEqual([run.outputs.errors, run.outputs.warnings, run.outputs.infos].map(Number), [
      json.summary.errors,
      json.summary.warnings,
      json.summary.infos,
    ]);
    assert.ok(json.summary.errors > 0 && json.summary.warnings > 0 && json.summary.infos > 0);
    // The CLI run as the job ran it: act says the repository is nektos/act, at the workflow's commit.
    const github = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'nektos/act', GITHUB_SHA: run.sha };
    assert.equal(run.outputs.sarif, 'probe-lint.sarif');
    // The same results, run for run; SRCROOT is where each ran (act's workspace, the CLI's directory).
    const withoutRoot = (sarif: string) => sarif.replace(/("SRCROOT": \{\s*"uri": )"[^"]*"/, '$1"…"');
    assert.equal(
      withoutRoot(readFileSync(join(run.workspace, 'probe-lint.sarif'), 'utf8')),
      withoutRoot(cli(examples, ['manifests', '--format', 'sarif'], github).stdout),
    );
    const annotations = cli(examples, ['manifests', '--format', 'github'], github)
      .stdout.split('\n')
      .filter((line) => line.startsWith('::'));
    assert.deepEqual(run.annotations, annotations, 'each annotation once, as --format github writes it');
    const markdown = cli(examples, ['manifests', '--format', 'markdown', '--fail-on', 'error'], github).stdout;
    assert.equal(run.summary, markdown.trim(), 'the summary is the markdown report, with links to the commit');
    assert.match(run.summary, /\| `probe-port-not-declared` \| 1 \| 0 \| 0 \|/);
    assert.equal(run.outputs.html, 'probe-lint.html');
    assert.deepEqual(
      articleIds(readFileSync(join(run.workspace, 'probe-lint.html'), 'utf8')),
      json.findings.map((finding: { fingerprint: string }) => finding.fingerprint),
      'the HTML report holds every finding, by its fingerprint',
    );
  });

  it('fails exactly at the level asked: on an info at info, not at warning; never with never', () => {
    const infoOnly = source('info-only');
    assert.equal(runAction(infoOnly, { path: 'manifests', 'fail-on': 'info' }).outputs.outcome, 'failure');
    const atWarning = runAction(infoOnly, { path: 'manifests', 'fail-on': 'warning' });
    assert.equal(atWarning.outputs.outcome, 'success');
    assert.deepEqual([atWarning.outputs.errors, atWarning.outputs.warnings, atWarning.outputs.infos], ['0', '0', '1']);
    assert.equal(runAction(source('examples'), { path: 'manifests', 'fail-on': 'never' }).outputs.outcome, 'success');
  });

  it('takes a path, a config and a SARIF name that look like options or hold $(…) as names, and runs nothing of them', () => {
    const hostile = mkdtempSync(join(tmpdir(), 'probe-lint-act-hostile-'));
    const path = '--fail-on=never $(touch pwned-path)';
    manifests('examples', join(hostile, path));
    const config = '$(touch pwned-config).yaml';
    writeFileSync(join(hostile, config), 'rules:\n  probe-port-not-declared: off\n');
    const run = runAction(hostile, { path, 'fail-on': 'error', config, sarif: '$(touch pwned-sarif).sarif' });
    assert.equal(run.outputs.outcome, 'failure', 'the path is a path: --fail-on=never in it changes nothing');
    const json = JSON.parse(cli(hostile, ['--config', config, '--format', 'json', '--', path]).stdout);
    assert.equal(Number(run.outputs.errors), json.summary.errors, 'the config named $(…) is read as that file');
    assert.equal(Number(run.outputs.errors), JSON.parse(cli(hostile, ['--format', 'json', '--', path]).stdout).summary.errors - 1);
    assert.equal(run.outputs.sarif, '$(touch pwned-sarif).sarif');
    assert.ok(existsSync(join(run.workspace, '$(touch pwned-sarif).sarif')));
    for (const name of ['pwned-path', 'pwned-config', 'pwned-sarif']) {
      assert.ok(!existsSync(join(run.workspace, name)), `${name} was created: a value ran as shell text`);
    }
  });

  it("on a pull request reports only the findings in the files it changes, from the event's base commit", () => {
    const checkout = mkdtempSync(join(tmpdir(), 'probe-lint-act-pr-'));
    manifests('examples', join(checkout, 'manifests'));
    const base = gitRepository(checkout);
    // The pull request adds one file with a bad probe; the history's findings stay where they were.
    writeFileSync(join(checkout, 'manifests/added.yaml'), podYaml('livenessProbe: {httpGet: {path: /, port: 8080}, timeoutSeconds: 10}'));
    const git = (...args: string[]) => spawnSync('git', ['-c', 'user.email=ci@probe-lint.test', '-c', 'user.name=ci', ...args], { cwd: checkout });
    git('add', '-A');
    git('commit', '-qm', 'the pull request');
    const run = runAction(checkout, { path: 'manifests', 'fail-on': 'warning' }, { pullRequest: { base: { sha: base } } });
    const json = JSON.parse(cli(checkout, ['manifests', '--format', 'json', '--changed-since', base]).stdout);
    assert.ok(json.findings.length > 0 && json.changedSince.outside > 0, 'the case needs findings on both sides');
    assert.ok(json.findings.every((finding: { file: string }) => finding.file === 'manifests/added.yaml'));
    assert.equal(Number(run.outputs.warnings), json.summary.warnings);
    assert.equal(run.outputs.outcome, 'failure');
    assert.ok(run.annotations.length > 0 && run.annotations.every((line) => line.includes('file=manifests/added.yaml')), run.annotations.join('\n'));
    // Turned off, the same event reports everything.
    const all = runAction(checkout, { path: 'manifests', 'fail-on': 'warning', 'changed-only': 'false' }, { pullRequest: { base: { sha: base } } });
    assert.equal(Number(all.outputs.errors), JSON.parse(cli(checkout, ['manifests', '--format', 'json']).stdout).summary.errors);
  });

  it('says which Node.js it found when the runner has one older than 22', () => {
    const old = mkdtempSync(join(tmpdir(), 'probe-lint-old-node-'));
    // A node that says it is 20, as the runner's default can be.
    writeFileSync(join(old, 'node'), '#!/bin/sh\ncase "$*" in *process.versions.node*) echo 20 ;; *--version*) echo v20.19.0 ;; *) exit 1 ;; esac\n', {
      mode: 0o755,
    });
    const run = runAction(source('examples'), { path: 'manifests' }, { nodeDirectory: old });
    assert.equal(run.outputs.outcome, 'failure');
    assert.match(run.log, /::error title=probe-lint::probe-lint needs Node\.js 22 or later; the runner's is v20\.19\.0/);
  });
});

describe("the Action's job summary", () => {
  it("is the Markdown report as it is, or, past GitHub's 1 MiB, whole lines of it and a last line that says how many rows were left out", () => {
    const pods = Array.from({ length: 1500 }, (_, index) =>
      podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  timeoutSeconds: 10\nreadinessProbe:\n  httpGet:\n    port: 80').replace(
        'name: p',
        `name: pod-${index}-名前`,
      ),
    );
    const report = Buffer.from(runCli(['-', '--format', 'markdown', '--fail-on', 'never'], { input: pods.join('---\n') }).stdout);
    assert.ok(report.length > 1024 * 1024, `${report.length} bytes: the case needs a report past the limit`);
    const summary = jobSummary(report);
    assert.ok(summary.length <= 1024 * 1024, `${summary.length} bytes`);
    const text = summary.toString('utf8');
    const [kept, note] = [text.slice(0, text.lastIndexOf('\n**Cut here:**')), /\*\*Cut here:\*\* (\d+) more table rows/.exec(text)];
    assert.ok(note !== null, text.slice(-300));
    assert.ok(report.toString('utf8').startsWith(kept), 'the kept part is the report, cut at a line');
    const rows = (markdown: string) => markdown.split('\n').filter((line) => line.startsWith('| ')).length;
    assert.equal(rows(kept) + Number(note[1]), rows(report.toString('utf8')));
    const small = Buffer.from(runCli(['-', '--format', 'markdown', '--fail-on', 'never'], { input: pods[0]! }).stdout);
    assert.deepEqual(jobSummary(small), small);
  });
});

describe('the GitLab CI/CD component, run by gitlab-ci-local', { skip: unavailable }, () => {
  /** The project, with the component at templates/ and an include of it at HEAD, as its own project tests it. */
  function runComponent(
    kind: 'examples' | 'info-only',
    inputs: Record<string, string>,
    commit?: (project: string) => void,
    mergeRequest?: (project: string) => void,
  ) {
    const project = mkdtempSync(join(tmpdir(), 'probe-lint-gitlab-'));
    mkdirSync(join(project, 'templates'));
    cpSync(join(ROOT, 'templates/probe-lint.yml'), join(project, 'templates/probe-lint.yml'));
    manifests(kind, join(project, inputs.path ?? 'manifests'));
    commit?.(project);
    const base = gitRepository(project, 'https://gitlab.com/probe-lint/probe-lint.git');
    // A merge request pipeline: the change is committed on top, GitLab names the diff base. The include
    // names the commit checked out, which gitlab-ci-local reads from the project itself.
    mergeRequest?.(project);
    const sha = mergeRequest === undefined ? base : spawnSync('git', ['rev-parse', 'HEAD'], { cwd: project, encoding: 'utf8' }).stdout.trim();
    const variables = mergeRequest === undefined ? [] : ['--variable', `CI_MERGE_REQUEST_DIFF_BASE_SHA=${base}`];
    // The package: this checkout (npm links a directory, with its dependencies as they are), so the job needs no network.
    const withPackage = { package: ROOT, ...inputs };
    writeFileSync(
      join(project, '.gitlab-ci.yml'),
      `include:\n  - component: gitlab.com/probe-lint/probe-lint/probe-lint@${sha}\n    inputs:\n${Object.entries(withPackage)
        .map(([name, value]) => `      ${name}: ${JSON.stringify(value)}`)
        .join('\n')}\n`,
    );
    const run = spawnSync(GITLAB_CI_LOCAL, ['--force-shell-executor', '--no-color', ...variables, 'probe-lint'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${NODE_DIR}:${process.env.PATH}` },
      timeout: 300_000,
    });
    return { code: run.status, output: run.stdout + run.stderr, project };
  }

  it('writes the Code Quality, JUnit and HTML reports the CLI writes, and fails on errors', () => {
    const run = runComponent('examples', { path: 'manifests', 'fail-on': 'error' });
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /FAIL +probe-lint/);
    assert.deepEqual(
      articleIds(readFileSync(join(run.project, 'probe-lint.html'), 'utf8')),
      (JSON.parse(cli(run.project, ['manifests', '--format', 'json']).stdout) as { findings: { fingerprint: string }[] }).findings.map(
        (finding) => finding.fingerprint,
      ),
    );
    assert.equal(readFileSync(join(run.project, 'gl-code-quality-report.json'), 'utf8'), cli(run.project, ['manifests', '--format', 'gitlab']).stdout);
    assert.equal(
      readFileSync(join(run.project, 'probe-lint-junit.xml'), 'utf8'),
      cli(run.project, ['manifests', '--format', 'junit', '--fail-on', 'error']).stdout,
    );
  });

  it('in a merge request pipeline reports only the findings in the files the merge request changes', () => {
    const run = runComponent('examples', { path: 'manifests', 'fail-on': 'warning' }, undefined, (project) => {
      writeFileSync(join(project, 'manifests/added.yaml'), podYaml('livenessProbe: {httpGet: {path: /, port: 8080}, timeoutSeconds: 10}'));
      spawnSync('git', ['-c', 'user.email=ci@probe-lint.test', '-c', 'user.name=ci', 'add', '-A'], { cwd: project });
      spawnSync('git', ['-c', 'user.email=ci@probe-lint.test', '-c', 'user.name=ci', 'commit', '-qm', 'the merge request'], { cwd: project });
    });
    assert.equal(run.code, 1, run.output);
    const issues = JSON.parse(readFileSync(join(run.project, 'gl-code-quality-report.json'), 'utf8')) as { location: { path: string } }[];
    assert.ok(issues.length > 0 && issues.every((issue) => issue.location.path === 'manifests/added.yaml'), JSON.stringify(issues));
    const all = JSON.parse(cli(run.project, ['manifests', '--format', 'gitlab']).stdout) as unknown[];
    assert.ok(all.length > issues.length);
  });

  it('fails exactly at the level asked, and writes its reports when it passes too', () => {
    assert.equal(runComponent('info-only', { path: 'manifests', 'fail-on': 'info' }).code, 1);
    const passed = runComponent('info-only', { path: 'manifests', 'fail-on': 'warning' });
    assert.equal(passed.code, 0, passed.output);
    assert.ok(existsSync(join(passed.project, 'gl-code-quality-report.json')) && existsSync(join(passed.project, 'probe-lint-junit.xml')));
  });

  it("runs nothing the repository commits before the lint (no install script of a .probe-lint/ or a package.json), and writes no report through the repository's links", () => {
    const outside = mkdtempSync(join(tmpdir(), 'probe-lint-gitlab-outside-'));
    const target = join(outside, 'kept.json');
    writeFileSync(target, 'kept');
    const marker = join(outside, 'ran');
    const script = `node -e "require('fs').writeFileSync(${JSON.stringify(marker)}, process.env.CI_JOB_TOKEN ?? 'no token')"`;
    const run = runComponent('examples', { path: 'manifests', 'fail-on': 'error' }, (project) => {
      // What an install in the project would honour: the prefix's own package.json (its dependencies are
      // installed too, their scripts run), a package.json and an .npmrc of the project.
      mkdirSync(join(project, 'hostile'));
      writeFileSync(join(project, 'hostile/package.json'), JSON.stringify({ name: 'hostile', version: '1.0.0', scripts: { install: script } }));
      for (const directory of ['.probe-lint', '.']) {
        mkdirSync(join(project, directory), { recursive: true });
        writeFileSync(
          join(project, directory, 'package.json'),
          JSON.stringify({
            name: 'project',
            version: '1.0.0',
            dependencies: { hostile: `file:${directory === '.' ? '' : '../'}hostile` },
            scripts: { preinstall: script, install: script, postinstall: script },
          }),
        );
      }
      writeFileSync(join(project, '.npmrc'), `prefix=${outside}\nscript-shell=/bin/false\n`);
      symlinkSync(target, join(project, 'gl-code-quality-report.json'));
    });
    assert.ok(!existsSync(marker), `a committed install script ran:\n${run.output}`);
    assert.equal(readFileSync(target, 'utf8'), 'kept');
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /cannot write the gitlab report to gl-code-quality-report\.json: it is a symbolic link/);
  });

  it('takes a path with spaces, quotes, a colon, $VAR, $(…), # or a leading -- as a path', () => {
    const path = '--fail-on=never a dir: "x" $HOME $(touch pwned) #c';
    const run = runComponent('examples', { path, 'fail-on': 'error' });
    assert.equal(run.code, 1, run.output);
    assert.ok(!existsSync(join(run.project, 'pwned')), 'a value ran as shell text');
    const report = JSON.parse(readFileSync(join(run.project, 'gl-code-quality-report.json'), 'utf8')) as { location: { path: string } }[];
    assert.ok(
      report.length > 0 && report.every((issue) => issue.location.path.startsWith(`${path}/`)),
      JSON.stringify(report.map((issue) => issue.location.path)),
    );
  });
});
