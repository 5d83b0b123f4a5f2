/**
 * Edit distance between two short strings: insertions, deletions, substitutions and swaps of two
 * neighbouring letters (optimal string alignment), each one edit. A swap is the commonest typo
 * (GTE, PSOT, tenat): counted as two, a 3- or 4-letter word's swap was out of a typo's reach.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, before[j - 2]! + 1);
      }
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** A command with the other names it answers to: one candidate, suggested by its name. */
export interface Aliased {
  name: string;
  aliases: readonly string[];
}

/** A name to suggest. */
export type Candidate = string | Aliased;

const nameOf = (c: Candidate) => (typeof c === 'string' ? c : c.name);
const namesOf = (c: Candidate) => (typeof c === 'string' ? [c] : [c.name, ...c.aliases]);
const dashesOf = (word: string) => word.length - word.replace(/^-+/, '').length;

/**
 * The one candidate that begins with `word` (`--event` of `--event-type`, `web` of webhooks or
 * its alias webhook), ignoring case and leading dashes (which must be the same); undefined when
 * none does, when several do (no guess between them), or when the word is a single character
 * without the dashes of a long option (`--r` begins `--role`; a bare `e` begins too much).
 * Candidates come in tiers, nearest first (a command's own options, then the global ones): the
 * first tier that has any candidate beginning with the word decides.
 */
export function beginningOf(word: string, ...tiers: Iterable<Candidate>[]): string | undefined {
  const stem = word.replace(/^-+/, '').toLowerCase();
  const dashes = dashesOf(word);
  if (stem.length < (dashes >= 2 ? 1 : 2)) return undefined;
  const begins = (name: string) =>
    dashesOf(name) === dashes && name.replace(/^-+/, '').toLowerCase().startsWith(stem);
  for (const tier of tiers) {
    const matches = new Set([...tier].filter((c) => namesOf(c).some(begins)).map(nameOf));
    if (matches.size > 0) return matches.size === 1 ? [...matches][0] : undefined;
  }
  return undefined;
}

/**
 * The candidate closest to `word`, for "did you mean …?" hints: the word itself, else the one
 * candidate it is the beginning of, else the nearest plausible typo (at most a third of the
 * word's length, and at most 3 edits). A command is suggested by its name, whichever of its
 * names the word is close to.
 */
export function closest(word: string, candidates: Iterable<Candidate>): string | undefined {
  const all = [...candidates];
  const lower = word.toLowerCase();
  const same = all.flatMap(namesOf).find((name) => name.toLowerCase() === lower);
  if (same !== undefined) return same;
  const begun = beginningOf(word, all);
  if (begun !== undefined) return begun;
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of all) {
    for (const name of namesOf(candidate)) {
      const distance = editDistance(lower, name.toLowerCase());
      if (distance < bestDistance) {
        best = nameOf(candidate);
        bestDistance = distance;
      }
    }
  }
  return best;
}

/** ` (did you mean X?)`, or an empty string. */
export function didYouMean(word: string, candidates: Iterable<Candidate>): string {
  const match = closest(word, candidates);
  return match === undefined || match === word ? '' : ` (did you mean ${match}?)`;
}
