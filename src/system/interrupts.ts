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

/**
 * What a command says when a second signal ends it at once (a bulk run: how far it got, how to
 * resume; a token refresh under way: that the login may be lost): an error for the binary to
 * render as it renders any (src/cli.ts). Each is asked once, just before the exit, in the order
 * they were made (a bulk run's first, which may clear what it drew: a progress bar).
 */
const lastWords: Array<() => unknown> = [];

/** Makes `word` one of what a second signal prints before exiting at once, until the returned call. */
export function lastWordOnExit(word: () => unknown): () => void {
  lastWords.push(word);
  return () => {
    const at = lastWords.indexOf(word);
    if (at !== -1) lastWords.splice(at, 1);
  };
}

/**
 * The binary's handler of SIGINT, SIGTERM and SIGHUP: the first stops the command (`abort`); a
 * second exits (130) at once — after the work it must not cut short (`unabandoned`), if any, or
 * else after the command's last words (a line each), saying that it stopped and how to go on.
 */
export function interruptHandler(options: {
  abort: () => void;
  exit: (code: number) => void;
  write: (text: string) => void;
  render: (error: unknown) => string;
}): () => void {
  let interrupts = 0;
  return () => {
    interrupts++;
    if (interrupts === 1) {
      options.abort();
      return;
    }
    // Never in the middle of putting something back: after it.
    const work = unabandonedWork();
    if (!work) {
      if (interrupts === 2) {
        for (const last of [...lastWords]) {
          const word = last();
          if (word !== undefined) options.write(options.render(word));
        }
      }
      options.exit(130);
      return;
    }
    if (interrupts === 2) options.write(`${work.what}; svc exits (130) once that is done\n`);
    // After the work's own messages, which follow it in the same turn of the event loop.
    void work.done.then(() => setImmediate(() => options.exit(130)));
  };
}
