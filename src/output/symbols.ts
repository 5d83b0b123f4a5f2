/**
 * svc's own symbols and their ASCII stand-ins, for a locale that is not UTF-8 (io.ts
 * unicodeLocale): in such a terminal the UTF-8 bytes of "✓" show as garbage. Applied only to
 * text svc composes (messages, errors, a table's cut marks), never to the data it prints.
 */
const ASCII: ReadonlyArray<readonly [string, string]> = [
  ['✓', 'ok'],
  ['✗', 'x'],
  ['…', '...'],
  ['→', '->'],
  ['—', '--'],
  ['─', '-'],
  ['·', '-'],
  ['’', "'"],
  ['±', '+/-'],
  ['−', '-'],
];

/** The mark of a value cut short: "…", or "..." when the locale is not UTF-8. */
export const ellipsis = (unicode: boolean): string => (unicode ? '…' : '...');

/** `text` with svc's symbols as ASCII when the locale is not UTF-8; as it is otherwise. */
export function localSymbols(text: string, unicode: boolean): string {
  if (unicode) return text;
  let out = text;
  for (const [symbol, ascii] of ASCII) out = out.replaceAll(symbol, ascii);
  return out;
}
