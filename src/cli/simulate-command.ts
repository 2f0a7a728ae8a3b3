// `probe-lint simulate`: the serving workloads of the inputs (manifests, charts, kustomizations, read
// by the lint session like every command) through a scenario, with the smallest change that keeps the
// service's outage from outlasting the scenario's. A target no probe reaches is a usage error: a
// misspelt dependency must not look like a fleet that rides out its outage.
import { inputErrorWhere } from '../report/located.js';
import { formatSimulationJson, formatSimulationText } from '../report/simulation.js';
import { formatSimulationSvg } from '../report/simulation-svg.js';
import { visible } from '../report/visible.js';
import type { SimulateArguments } from './arguments.js';
import { readCommandInputs, type CommandIo } from './context.js';

export async function runSimulate(args: SimulateArguments, io: CommandIo): Promise<number> {
  const read = await readCommandInputs(args, io);
  if (read === undefined) return 2;
  const { session, inputs, progress } = read;
  const { workloads, untouched } = session.simulate(inputs, args.scenario);
  progress.end();
  for (const error of inputs.inputErrors) io.stderr(`probe-lint: ${visible(inputErrorWhere(error))}: ${visible(error.message)}\n`);
  const unreached = args.scenario.filter((part, index) => part.target !== 'self' && !workloads.some((workload) => workload.reachedParts.includes(index)));
  if (unreached.length > 0 && inputs.inputErrors.length === 0) {
    io.stderr(
      `probe-lint: no probe in the input checks ${unreached.map((part) => visible(part.target)).join(' or ')}: give a host an exec probe's client or an httpGet's host names (or a framework's aggregate health endpoint checks), or hang=self:DURATION\n`,
    );
    return 2;
  }
  const report = { parts: args.scenario, workloads, untouched };
  const format = { text: formatSimulationText, json: formatSimulationJson, svg: formatSimulationSvg }[args.format];
  io.stdout(format(report));
  if (inputs.inputErrors.length > 0) return 2;
  const failing =
    args.failAbove === undefined
      ? []
      : workloads.filter((workload) => workload.serviceDown !== null && (workload.amplification === null || workload.amplification > args.failAbove!));
  return failing.length > 0 ? 1 : 0;
}
