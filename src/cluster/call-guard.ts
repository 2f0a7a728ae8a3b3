// One guard for every call to the API server (after ADR-0013, see ../shared/design.md): a deadline
// per call, exponential backoff after a failure, and a circuit that opens after repeated failures
// and lets one trial call through after a wait. The admission path never calls through it.
import type { Logger } from 'pino';
import type { ClusterMetrics } from './cluster-metrics.js';

export type CircuitState = 'closed' | 'half-open' | 'open';
const STATE_VALUE: Record<CircuitState, number> = { closed: 0, 'half-open': 1, open: 2 };

export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

export interface GuardOptions {
  deadlineMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before one trial call. */
  openMs: number;
}

export const DEFAULT_GUARD: GuardOptions = {
  deadlineMs: 30_000,
  backoffInitialMs: 1_000,
  backoffMaxMs: 5 * 60_000,
  failureThreshold: 10,
  openMs: 30 * 60_000,
};

/** Thrown instead of calling when the guard does not allow a call now. */
export class CallNotAllowed extends Error {
  constructor(
    readonly state: CircuitState,
    readonly retryAt: number,
  ) {
    super(state === 'open' ? 'circuit open: the API server is not called until the trial call' : 'backing off after a failed call');
  }
}

export class DeadlineExceeded extends Error {}

export class CallGuard {
  private stateValue: CircuitState = 'closed';
  private consecutiveFailures = 0;
  private nextAttemptAt = 0;
  private trialInFlight = false;

  constructor(
    private readonly options: GuardOptions,
    private readonly clock: Clock,
    private readonly metrics: ClusterMetrics | undefined,
    private readonly logger: Logger | undefined,
  ) {
    this.metrics?.circuitState.set(STATE_VALUE.closed);
  }

  get state(): CircuitState {
    return this.stateValue;
  }

  get failures(): number {
    return this.consecutiveFailures;
  }

  /** When the next call may be made (epoch ms); now or earlier means now. */
  get retryAt(): number {
    return this.nextAttemptAt;
  }

  /** Whether a call may be made now; moves an open circuit whose wait is over to half-open. */
  canCall(): boolean {
    const now = this.clock.now();
    if (this.stateValue === 'open') {
      if (now < this.nextAttemptAt) return false;
      this.transition('half-open');
    }
    if (this.stateValue === 'half-open') return !this.trialInFlight;
    return now >= this.nextAttemptAt;
  }

  /**
   * Runs `call` with the deadline, recording its outcome; throws CallNotAllowed when it may not run now.
   * A call made of several requests (a paginated list) calls `answered` after each answer: the
   * deadline is per request, so a list of 300 pages of a big cluster is not cut off at 30 s while
   * a page that never comes still is.
   */
  async run<T>(name: string, call: (signal: AbortSignal, answered: () => void) => Promise<T>): Promise<T> {
    if (!this.canCall()) throw new CallNotAllowed(this.stateValue, this.nextAttemptAt);
    const trial = this.stateValue === 'half-open';
    if (trial) this.trialInFlight = true;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DeadlineExceeded(`${name}: no answer within ${this.options.deadlineMs} ms`)), this.options.deadlineMs);
    const answered = () => {
      if (!controller.signal.aborted) timer.refresh();
    };
    try {
      const result = await Promise.race([
        call(controller.signal, answered),
        new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true })),
      ]);
      this.succeeded();
      return result;
    } catch (error) {
      // A refusal (403, 404, 422…) is the API server answering: it says nothing of the server's health,
      // and must not open the circuit for the calls after it (one namespace refusing its report).
      if (isRefusal(error)) this.succeeded();
      else this.failed(name, error);
      throw error;
    } finally {
      clearTimeout(timer);
      if (trial) this.trialInFlight = false;
    }
  }

  private succeeded(): void {
    this.consecutiveFailures = 0;
    this.nextAttemptAt = 0;
    if (this.stateValue !== 'closed') this.transition('closed');
  }

  private failed(name: string, error: unknown): void {
    const now = this.clock.now();
    this.consecutiveFailures++;
    this.metrics?.refreshFailures.inc({ call: name });
    if (this.stateValue === 'half-open' || this.consecutiveFailures >= this.options.failureThreshold) {
      this.nextAttemptAt = now + this.options.openMs;
      if (this.stateValue !== 'open') this.transition('open', { call: name, failures: this.consecutiveFailures, reason: (error as Error)?.message });
      return;
    }
    const delay = Math.min(this.options.backoffInitialMs * 2 ** (this.consecutiveFailures - 1), this.options.backoffMaxMs);
    this.nextAttemptAt = now + delay;
  }

  private transition(state: CircuitState, details: Record<string, unknown> = {}): void {
    const from = this.stateValue;
    this.stateValue = state;
    this.metrics?.circuitState.set(STATE_VALUE[state]);
    // One log line per state change, never one per failure.
    this.logger?.[state === 'open' ? 'warn' : 'info']({ from, to: state, ...details }, 'cluster circuit breaker changed state');
  }
}

/** An answer of the API server's that refuses this one request (4xx), as opposed to a server that is down, slow or throttling. */
function isRefusal(error: unknown): boolean {
  const status = (error as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;
}
