// How the work of a function grows with its input, measured as a ratio of CPU time in the same run:
// never against a wall clock, and robust to a busy machine (the process's own CPU time, the fastest
// of several rounds, a full garbage collection before each round so that one run does not pay for
// the heap another left, and a fresh measurement when one comes out high: linear work measures low
// again, quadratic work never does).
import { cpuUsage } from 'node:process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A full collection on demand, without asking every test run for --expose-gc.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** CPU microseconds of one call, after a full collection. */
function cpuOf(work: () => void): number {
  collectGarbage();
  const before = cpuUsage();
  work();
  const spent = cpuUsage(before);
  return spent.user + spent.system;
}

/** The fastest round's CPU time on `large` over the fastest round's on `small`. */
function measuredRatio(run: () => void, runLarge: () => void, rounds: number): number {
  let fastestSmall = Number.POSITIVE_INFINITY;
  let fastestLarge = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    fastestSmall = Math.min(fastestSmall, cpuOf(run));
    fastestLarge = Math.min(fastestLarge, cpuOf(runLarge));
  }
  return fastestLarge / Math.max(fastestSmall, 1);
}

/**
 * The fastest round's CPU time on an input `factor` times larger, divided by the fastest round's on
 * the smaller one: about `factor` for linear work, `factor`² for quadratic. Inputs are made before
 * timing; each is run once untimed first so that compiling the code is not counted. A ratio at or
 * above `linearBound(factor)` is measured again, up to `attempts` times, and the lowest is returned:
 * a busy machine's noise does not repeat, a quadratic reader's cost does.
 */
export function growthRatio<T>(make: (size: number) => T, run: (input: T) => void, size: number, factor = 4, rounds = 5, attempts = 3): number {
  const small = make(size);
  const large = make(size * factor);
  run(small);
  run(large);
  let lowest = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < attempts && lowest >= linearBound(factor); attempt++) {
    lowest = Math.min(
      lowest,
      measuredRatio(
        () => run(small),
        () => run(large),
        rounds,
      ),
    );
  }
  return lowest;
}

/** The bound a linear function's ratio stays under for `factor` (halfway, on a log scale, to quadratic's). */
export function linearBound(factor = 4): number {
  return factor ** 1.5;
}
