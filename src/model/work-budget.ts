// Bounded work per lint: a review of one tenant's object must not hold the event loop for the
// others. Readers of untrusted text draw from the budget as they read (a unit is about a character
// or a word); when it runs out they throw, and the engine stops, answering with what it found so far
// and saying so. Readers are linear, so an honest object never comes near the limit.

/** Thrown by `WorkBudget.spend` once the budget is spent; the engine catches it, nothing else should. */
export class WorkBudgetExceeded extends Error {
  constructor(readonly limit: number) {
    super(`the work budget of ${limit} units for one lint is spent`);
    this.name = 'WorkBudgetExceeded';
  }
}

export class WorkBudget {
  private spentUnits = 0;

  constructor(readonly limit: number) {}

  /** Draws `units`; throws WorkBudgetExceeded when that takes the total past the limit. */
  spend(units: number): void {
    this.spentUnits += units;
    if (this.spentUnits > this.limit) throw new WorkBudgetExceeded(this.limit);
  }

  get spent(): number {
    return this.spentUnits;
  }

  get exceeded(): boolean {
    return this.spentUnits > this.limit;
  }
}

/** A budget that never runs out: for callers that read their own, trusted text. */
export const UNLIMITED_WORK: WorkBudget = new WorkBudget(Number.POSITIVE_INFINITY);
