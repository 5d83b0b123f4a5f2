/**
 * A signal stopped with the first of its sources, as AbortSignal.any makes, but holding nothing
 * on them once `end()` is called. On Node 20 every signal AbortSignal.any makes stays listed on
 * its sources for good (nodejs/node#55351): on a long-lived one (the command's Ctrl-C signal) one
 * entry per bulk run, per token refresh, per row (55 MB at a million rows, review23b L1). Here a
 * `{ once: true }` abort listener on each source aborts the signal with that source's reason, and
 * `end()` removes them all; a source already aborted aborts it at once.
 */
export interface LinkedSignal {
  signal: AbortSignal;
  /** Unlinks it from its sources: called once what it was made for has ended (again: nothing). */
  end(): void;
}

export function linkedSignal(sources: readonly AbortSignal[]): LinkedSignal {
  const own = new AbortController();
  const first = sources.find((source) => source.aborted);
  if (first) {
    own.abort(first.reason);
    return { signal: own.signal, end: () => {} };
  }
  const links = sources.map((source) => {
    const stopped = () => {
      end();
      own.abort(source.reason);
    };
    source.addEventListener('abort', stopped, { once: true });
    return { source, stopped };
  });
  const end = () => {
    for (const { source, stopped } of links) source.removeEventListener('abort', stopped);
  };
  return { signal: own.signal, end };
}
