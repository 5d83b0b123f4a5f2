/**
 * Work a second Ctrl-C must not cut short: `svc webhooks listen --webhook` changing its webhook
 * at start-up or putting it back on the way out. The binary's signal handler (src/cli.ts) exits at
 * once (130) on a second signal, unless such work is under way: then it says so and exits when the
 * work has ended and said what it did (forwards still in flight are abandoned, the restore never).
 */
interface Unabandoned {
  /** What is being finished, for the one line the second signal prints. */
  what: string;
  done: Promise<unknown>;
}

const underWay = new Set<Unabandoned>();

/** Runs `work` (which says its own outcome) so that a second Ctrl-C waits for it. */
export async function unabandoned<T>(what: string, work: () => Promise<T>): Promise<T> {
  const done = work();
  const entry = { what, done: done.catch(() => undefined) };
  underWay.add(entry);
  try {
    return await done;
  } finally {
    underWay.delete(entry);
  }
}

/** The work under way a second signal must wait for, if any. */
export function unabandonedWork(): { what: string; done: Promise<void> } | undefined {
  if (underWay.size === 0) return undefined;
  const entries = [...underWay];
  return {
    what: entries.map((entry) => entry.what).join('; '),
    done: Promise.all(entries.map((entry) => entry.done)).then(() => undefined),
  };
}
