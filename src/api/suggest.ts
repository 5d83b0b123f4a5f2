/** Edit distance (Levenshtein) between two short strings. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The one candidate that begins with `word` (`--event` of `--event-type`), ignoring case and
 * leading dashes; undefined when none does, when several do (no guess between them), or when the
 * word is a single character.
 */
export function beginningOf(word: string, candidates: Iterable<string>): string | undefined {
  const stem = word.replace(/^-+/, '').toLowerCase();
  if (stem.length < 2) return undefined;
  const dashes = word.length - word.replace(/^-+/, '').length;
  const matches = [...new Set(candidates)].filter((c) => {
    const lower = c.toLowerCase();
    return (
      lower.length - lower.replace(/^-+/, '').length === dashes && lower.replace(/^-+/, '').startsWith(stem)
    );
  });
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * The candidate closest to `word`, for "did you mean …?" hints: the word itself, else the one
 * candidate it is the beginning of, else the nearest plausible typo (at most a third of the
 * word's length, and at most 3 edits).
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const all = [...candidates];
  const lower = word.toLowerCase();
  const same = all.find((candidate) => candidate.toLowerCase() === lower);
  if (same !== undefined) return same;
  const begun = beginningOf(word, all);
  if (begun !== undefined) return begun;
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of all) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` (did you mean X?)`, or an empty string. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = closest(word, candidates);
  return match === undefined || match === word ? '' : ` (did you mean ${match}?)`;
}
