// Bounded work per review: every rule's input read in time linear in its size (measured as a ratio
// of CPU time in the same run, never against a clock), and a work budget that stops a lint with the
// findings it has, saying so, at admission and in the CLI.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { Engine, stoppedLintMessage } from '../src/engine/engine.js';
import { LintSession } from '../src/lint/index.js';
import { DEFAULT_LIMITS } from '../src/lint/admitted.js';
import { standaloneResource, type KubeObject } from '../src/model/resource.js';
import { commandsRun, expandVariables, shellCommands } from '../src/model/exec-command.js';
import { WorkBudget, WorkBudgetExceeded } from '../src/model/work-budget.js';
import { NamespacePolicy } from '../src/webhook/namespace-policy.js';
import { STOPPED_WARNING, validateRequest } from '../src/webhook/validate.js';
import { admissionReview, container, pod } from './admission.js';
import { runCli } from './helpers.js';
import { growthRatio, linearBound } from './linear-growth.js';

type Json = Record<string, any>;

const engine = new Engine(RULES, { config: {}, cluster: unknownCluster() });
const lintObject = (object: Json) => engine.lint([{ resources: [standaloneResource(object as KubeObject)] }]);

/** A Pod of one container whose liveness probe runs `command`, with `fields` on the container. */
const execPod = (command: string[], fields: Json = {}) => pod([container('app', { livenessProbe: { exec: { command } } }, fields)]);

/** Each input a rule reads, grown by `size`: what a tenant controls in one object. */
const GROWN: Record<string, (size: number) => Json> = {
  'wrapper prefixes in a shell script (nice nice … pg_isready)': (size) => execPod(['sh', '-c', `${'nice '.repeat(size)}pg_isready -h db`]),
  'wrapper words in the command itself': (size) => execPod([...Array<string>(size).fill('nice'), 'pg_isready', '-h', 'db']),
  'simple commands in a script': (size) => execPod(['sh', '-c', 'true; '.repeat(size) + 'mysqladmin ping -h db']),
  'options before the host': (size) => execPod(['pg_isready', ...Array<string>(size).fill('-q'), '-h', 'db']),
  'quoted words and escapes': (size) => execPod(['bash', '-c', `echo ${'"a\\"b" \'c\' '.repeat(size)}; redis-cli -h cache ping`]),
  'unterminated $( references': (size) => execPod([`${'$('.repeat(size)}`]),
  'a chain of env references': (size) =>
    execPod(['sh', '-c', Array.from({ length: size }, (_, index) => `$(V${index})`).join(' ')], {
      env: Array.from({ length: size }, (_, index) => ({ name: `V${index}`, value: `$(V${index + 1})` })),
    }),
  'httpGet headers': (size) =>
    pod([
      container('app', {
        livenessProbe: {
          httpGet: { port: 8080, path: '/healthz', httpHeaders: Array.from({ length: size }, (_, index) => ({ name: `X-H${index}`, value: 'v' })) },
        },
        readinessProbe: {
          httpGet: { port: 8080, path: '/healthz', httpHeaders: Array.from({ length: size }, (_, index) => ({ name: `X-H${index}`, value: 'v' })) },
        },
      }),
    ]),
  'named ports': (size) =>
    pod([
      container(
        'app',
        { livenessProbe: { tcpSocket: { port: `p${size - 1}` } }, readinessProbe: { httpGet: { port: `p${size - 1}` } } },
        { ports: Array.from({ length: size }, (_, index) => ({ name: `p${index}`.slice(0, 15), containerPort: 1000 + index })) },
      ),
    ]),
  containers: (size) =>
    pod(
      Array.from({ length: size }, (_, index) =>
        container(`c${index}`, {
          livenessProbe: { exec: { command: ['sh', '-c', 'pg_isready -h db'] }, periodSeconds: 2 },
          readinessProbe: { httpGet: { port: 80 }, terminationGracePeriodSeconds: 5 },
        }),
      ),
    ),
};

describe('every rule reads its input in linear time', () => {
  for (const [input, make] of Object.entries(GROWN)) {
    it(`grows linearly with ${input}`, () => {
      // Sizes whose smaller lint takes some milliseconds of CPU: a quadratic reader took seconds at the larger.
      const size = input === 'containers' ? 250 : input === 'httpGet headers' || input === 'named ports' ? 2_000 : 20_000;
      const ratio = growthRatio(make, (object) => lintObject(object), size);
      assert.ok(ratio < linearBound(), `4× the ${input} took ${ratio.toFixed(1)}× the CPU (linear: about 4; quadratic: 16)`);
    });
  }

  it('reads any script of repeated words in linear time (generated scripts)', () => {
    const word = fc.constantFrom(
      'nice',
      'exec',
      'env',
      'timeout 5',
      'if',
      '!',
      'A=1',
      '-n',
      '"x y"',
      "'z'",
      '\\;',
      ';',
      '&&',
      '|',
      '(',
      ')',
      '$(V)',
      '`b`',
      '#c\n',
    );
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (unit) => {
        const script = (size: number) => ['sh', '-c', `${unit.join(' ').repeat(size)} psql -h db`];
        const ratio = growthRatio(script, (command) => commandsRun(command), 8_000, 4, 3);
        assert.ok(ratio < linearBound(), `4× of ${JSON.stringify(unit.join(' '))} took ${ratio.toFixed(1)}× the CPU`);
      }),
      { numRuns: 8 },
    );
  });

  it('expands $(VAR) references in linear time, expanding each value once', () => {
    const env = new Map([['A', '$(A)$(A)']]);
    // A value that names variables is not expanded again: $(A) → "$(A)$(A)", not an explosion.
    assert.equal(expandVariables('$(A)', env), '$(A)$(A)');
    const ratio = growthRatio(
      (size) => '$('.repeat(size) + 'x',
      (text) => expandVariables(text, env),
      50_000,
    );
    assert.ok(ratio < linearBound(), `${ratio.toFixed(1)}×`);
  });
});

describe('the shell reader', () => {
  it('finds the client after wrappers with options that take a value, and after assignments', () => {
    const programs = (command: string[]) => commandsRun(command).map((run) => run.program);
    assert.deepEqual(programs(['nice', '-n', '10', 'pg_isready', '-h', 'db']), ['pg_isready']);
    assert.deepEqual(programs(['timeout', '-s', 'KILL', '5', 'env', '-u', 'HOME', 'A=1', 'redis-cli', 'ping']), ['redis-cli']);
    assert.deepEqual(programs(['/bin/sh', '-ec', 'set -e; PGPASSWORD=x exec psql -h db -c "select 1"']), ['set', 'psql']);
    assert.deepEqual(programs(['bash', '-c', "sh -c 'nc -z cache 6379'"]), ['nc']);
    assert.deepEqual(programs(['sh', '-c', '$SCRIPT']), []);
    assert.deepEqual(programs(['nice', 'nice']), []);
  });

  it('splits scripts at operators and line ends, and leaves comments out', () => {
    assert.deepEqual(
      shellCommands('a 1 && b "2 3" || c\\;d # e; f\n(g)').map((words) => words.map((word) => word.text)),
      [['a', '1'], ['b', '2 3'], ['c;d'], ['g']],
    );
  });
});

describe('a work budget per lint', () => {
  const heavy = (containers: number) =>
    pod(
      Array.from({ length: containers }, (_, index) =>
        container(`c${index}`, { livenessProbe: { exec: { command: ['sh', '-c', `${'nice '.repeat(2_000)}pg_isready -h db`] } } }),
      ),
    );

  it('throws once the units drawn pass the limit, not before', () => {
    const budget = new WorkBudget(10);
    budget.spend(10);
    assert.equal(budget.exceeded, false);
    assert.throws(() => budget.spend(1), WorkBudgetExceeded);
    assert.equal(budget.exceeded, true);
  });

  it('stops the lint of an object past its budget, keeps what it found before, and says so', () => {
    const limited = new Engine(RULES, { config: {}, cluster: unknownCluster(), workLimit: 25_000 });
    const object = heavy(20);
    const whole = lintObject(object);
    const stopped = limited.lint([{ resources: [standaloneResource(object as KubeObject)] }]);
    assert.equal(whole.stopped.length, 0);
    assert.equal(stopped.stopped.length, 1);
    assert.equal(stopped.stopped[0]!.limit, 25_000);
    assert.ok(stopped.findings.length > 0 && stopped.findings.length < whole.findings.length, `${stopped.findings.length} of ${whole.findings.length}`);
    // What it kept is what the whole lint found first.
    assert.deepEqual(
      stopped.findings.map((finding) => finding.message),
      whole.findings.slice(0, stopped.findings.length).map((finding) => finding.message),
    );
    assert.match(stoppedLintMessage(stopped.stopped[0]!), /stopped after its work budget \(25,000 units\)/);
  });

  it('a budget is per object: the next object in the same lint is linted whole', () => {
    const limited = new Engine(RULES, { config: {}, cluster: unknownCluster(), workLimit: 25_000 });
    const small = execPod(['pg_isready', '-h', 'db']);
    const result = limited.lint([{ resources: [standaloneResource(heavy(20) as KubeObject), standaloneResource(small as KubeObject)] }]);
    assert.equal(result.stopped.length, 1);
    assert.ok(result.findings.some((finding) => finding.resource.object === small && finding.rule === 'liveness-checks-dependencies'));
  });

  it('a review over budget answers with its findings so far and a warning that says so first', () => {
    const session = new LintSession(new Engine(RULES, { config: {}, cluster: unknownCluster() }));
    const request = admissionReview({ operation: 'CREATE', object: heavy(20) }).request;
    const settings = { limits: { ...DEFAULT_LIMITS, maxWork: 25_000 }, annotationsInEnforce: false };
    const outcome = validateRequest(request as never, session, new NamespacePolicy({}, undefined), settings);
    assert.equal(outcome.stopped, true);
    assert.equal(outcome.response.allowed, true);
    assert.equal(outcome.response.warnings?.[0], STOPPED_WARNING);
    assert.ok((outcome.response.warnings?.length ?? 0) > 1, 'the findings found before it are warnings too');
    const whole = validateRequest(request as never, session, new NamespacePolicy({}, undefined), { ...settings, limits: DEFAULT_LIMITS });
    assert.equal(whole.stopped, undefined);
    assert.ok(!whole.response.warnings?.includes(STOPPED_WARNING));
  });

  it('the 200 KB Pod of 40,000 wrapper prefixes is linted whole within the default budget, and the CLI reports it', () => {
    const object = execPod(['sh', '-c', `${'nice '.repeat(40_000)}pg_isready -h db`]);
    const result = lintObject(object);
    assert.equal(result.stopped.length, 0);
    assert.ok(result.findings.some((finding) => finding.rule === 'liveness-checks-dependencies' && finding.message.includes('db')));
    const run = runCli(['-f', 'json', '-'], { input: JSON.stringify(object) });
    assert.equal(run.code, 1, run.stderr);
    assert.ok((JSON.parse(run.stdout) as { findings: { rule: string }[] }).findings.some((finding) => finding.rule === 'liveness-checks-dependencies'));
  });
});
