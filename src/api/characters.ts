/**
 * The length of a text as the platform's JSON Schema `maxLength`/`minLength` counts it: Unicode
 * code points, not JavaScript's UTF-16 units (an emoji is one character, `'🎉'.length` is 2). Every
 * length limit svc checks before sending (and the sandbox checks by hand) counts with this, so svc
 * never refuses a text the platform takes, nor passes one it refuses.
 */
export function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
