// How the work of a function grows with its input, measured as a ratio of CPU time in the same run:
// never against a wall clock, and robust to a busy machine (the process's own CPU time, the fastest
// of several rounds, sizes large enough that a round takes tens of milliseconds).
import { cpuUsage } from 'node:process';

/** CPU microseconds of one call. */
function cpuOf(work: () => void): number {
  const before = cpuUsage();
  work();
  const spent = cpuUsage(before);
  return spent.user + spent.system;
}

/**
 * The fastest round's CPU time on an input `factor` times larger, divided by the fastest round's on
 * the smaller one: about `factor` for linear work, `factor`² for quadratic. Inputs are made before
 * timing; each is run once untimed first so that compiling the code is not counted.
 */
export function growthRatio<T>(make: (size: number) => T, run: (input: T) => void, size: number, factor = 4, rounds = 5): number {
  const small = make(size);
  const large = make(size * factor);
  run(small);
  run(large);
  let fastestSmall = Number.POSITIVE_INFINITY;
  let fastestLarge = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    fastestSmall = Math.min(
      fastestSmall,
      cpuOf(() => run(small)),
    );
    fastestLarge = Math.min(
      fastestLarge,
      cpuOf(() => run(large)),
    );
  }
  return fastestLarge / Math.max(fastestSmall, 1);
}

/** The bound a linear function's ratio stays under for `factor` (halfway, on a log scale, to quadratic's). */
export function linearBound(factor = 4): number {
  return factor ** 1.5;
}
