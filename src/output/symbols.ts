/**
 * svc's own symbols and their ASCII stand-ins, for a locale that is not UTF-8 (io.ts
 * unicodeLocale): in such a terminal the UTF-8 bytes of "✓" show as garbage. svc writes its marks
 * through `sym` where it composes a message (`${sym.ellipsis}`), so the stand-ins replace its own
 * marks only: the data a line quotes (a record id `rec_✓…`, a name, a server's message) is printed
 * as it is, never turned into another plausible value (`rec_ok...`). Help text is not converted.
 */
const MARKS = {
  check: ['✓', 'ok'],
  cross: ['✗', 'x'],
  ellipsis: ['…', '...'],
  arrow: ['→', '->'],
  dash: ['—', '--'],
  rule: ['─', '-'],
  dot: ['·', '-'],
  apostrophe: ['’', "'"],
  plusMinus: ['±', '+/-'],
  minus: ['−', '-'],
} as const satisfies Record<string, readonly [string, string]>;

type Mark = keyof typeof MARKS;

/**
 * Whether this process writes svc's marks as Unicode: set from the streams' locale when a command
 * starts (cli.ts) and when its output is made (Output), so every message composed after shows them
 * as the terminal can.
 */
let unicodeMarks = true;

export function useUnicodeMarks(unicode: boolean): void {
  unicodeMarks = unicode;
}

/** svc's marks as the locale shows them: `sym.ellipsis` is "…", or "..." when it is not UTF-8. */
export const sym = Object.fromEntries((Object.keys(MARKS) as Mark[]).map((mark) => [mark, ''])) as Record<
  Mark,
  string
>;
for (const mark of Object.keys(MARKS) as Mark[]) {
  Object.defineProperty(sym, mark, {
    get: () => MARKS[mark][unicodeMarks ? 0 : 1],
    enumerable: true,
  });
}

/** The mark of a value cut short: "…", or "..." when the locale is not UTF-8. */
export const ellipsis = (unicode: boolean): string => (unicode ? '…' : '...');
