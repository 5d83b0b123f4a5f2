/**
 * The order of a bulk run whose items depend on each other (svc apply: a custom role before the
 * grants of it, creations before deletions), for the runner:
 *
 * - phases: items carry a non-decreasing `phase`; no item of a later phase starts before every
 *   item already started has finished (a barrier, taken when the first item of the next phase
 *   is pulled);
 * - dependencies: an item names in `after` the keys of earlier items it needs. It waits for them
 *   and is not attempted when one of them failed (or was itself not attempted): that failure
 *   stops what depends on it, and nothing else.
 *
 * Only the outcomes of items marked `needed` are kept, so a run without dependencies (a
 * million-row grants file) keeps nothing.
 */
export class RunOrder {
  readonly #outcomes = new Map<string, Promise<boolean>>();
  readonly #settle = new Map<string, (ok: boolean) => void>();
  readonly #running = new Set<Promise<unknown>>();
  #phase: number | undefined;

  /** Waits, when `phase` starts a new phase, until every item started before has finished. */
  async enter(phase: number | undefined): Promise<void> {
    if (phase === undefined) return;
    if (this.#phase !== undefined && phase > this.#phase) await this.settled();
    this.#phase = Math.max(phase, this.#phase ?? phase);
  }

  /**
   * Resolves once every item taken so far has finished, or was left (a source that reads what items
   * change, read again; a phase's barrier): started ones, and those taken from the source whose
   * worker has yet to start them (take), which would otherwise start after it.
   */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  /**
   * Marks an item taken from the source, before its worker starts it (it first writes the results
   * so far: a slow stdout can hold it there): settled() waits for it until `release()`, called
   * once it has started (start) or was left. Counted only once started, a DLQ replay listed its
   * queue again before the last entry taken was sent, and a later phase's item started beside it.
   */
  take(): () => void {
    let release!: () => void;
    const taken = new Promise<void>((resolve) => (release = resolve));
    this.#running.add(taken);
    void taken.finally(() => this.#running.delete(taken));
    return release;
  }

  /** Marks an item started; its outcome becomes known to dependents when `finish` is called. */
  start(key: string, needed: boolean | undefined, running: Promise<unknown>): void {
    this.#running.add(running);
    void running.finally(() => this.#running.delete(running)).catch(() => {});
    if (!needed || this.#outcomes.has(key)) return;
    this.#outcomes.set(key, new Promise((resolve) => this.#settle.set(key, resolve)));
  }

  finish(key: string, ok: boolean): void {
    this.#settle.get(key)?.(ok);
    this.#settle.delete(key);
  }

  /**
   * The first of `after` that failed, once every one of them has finished; undefined when all
   * ended well. A key that is not an item of this run (nothing to do there) counts as done.
   */
  async failedDependency(after: readonly string[] | undefined): Promise<string | undefined> {
    if (!after || after.length === 0) return undefined;
    const outcomes = await Promise.all(after.map((key) => this.#outcomes.get(key) ?? true));
    const index = outcomes.indexOf(false);
    return index === -1 ? undefined : after[index];
  }
}

/**
 * The one rule of a run that can take away the caller's own reach (svc apply: revoking their
 * grant, narrowing or deleting a role they hold; svc roles revoke --file: their own rows): every
 * such item runs after every other item of the run, in phases numbered from here on, so what the
 * other items need of the caller's holds is still there when they are made, and a forecast judged
 * on the holds before the run (the dry run, svc plan) stays true for them. Far above any phase a
 * run numbers otherwise (one per change kind, one per order-linked row of a file).
 */
export const OWN_REACH_PHASE = 2 ** 40;

/** The phase of an item by the rule above: `phase` as it is, or after every other item's when `own`. */
export function ownReachLast(phase: number, own: boolean): number {
  return own ? OWN_REACH_PHASE + phase : phase;
}
