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

/**
 * A character as its `\uXXXX` escape, lower-case hex, at least four digits (`\u00ad`, `\u2028`): the
 * form JSON reads back as the same character, and how svc shows one a terminal would hide or act
 * on (output/sanitize.ts), a secret's JSON spelling (http/redact.ts) and an id's invisible
 * character (invisibleIn). A character past U+FFFF is one escape of its code point (`\ue0001`).
 */
export function unicodeEscape(char: string): string {
  return `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`;
}

/** A character's Unicode name form, `U+200B` (upper-case hex, at least four digits): how svc's words name one. */
export function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Names of the invisible (format, Unicode Cf) characters copying text out of chat, wikis and web pages adds. */
const INVISIBLE_NAMES: Record<number, string> = {
  173: 'SOFT HYPHEN',
  8203: 'ZERO WIDTH SPACE',
  8204: 'ZERO WIDTH NON-JOINER',
  8205: 'ZERO WIDTH JOINER',
  8206: 'LEFT-TO-RIGHT MARK',
  8207: 'RIGHT-TO-LEFT MARK',
  8288: 'WORD JOINER',
  65279: 'ZERO WIDTH NO-BREAK SPACE (a byte-order mark)',
};

/**
 * The first invisible character of a text (Unicode Cf: zero-width spaces and joiners, the soft
 * hyphen, a byte-order mark, bidi marks), as `U+200B ZERO WIDTH SPACE`, and its place counted in
 * characters from 1; undefined when there is none. No id holds one: it is a paste's leftover.
 */
export function invisibleCharacter(text: string): { name: string; at: number } | undefined {
  let at = 0;
  for (const char of text) {
    at++;
    if (!/\p{Cf}/u.test(char)) continue;
    const name = INVISIBLE_NAMES[char.codePointAt(0)!];
    return { name: name === undefined ? codePoint(char) : `${codePoint(char)} ${name}`, at };
  }
  return undefined;
}

/**
 * An id holding an invisible character (pasted from chat or a web page), in words with the fix,
 * the id shown with every such character as its escape, whatever a terminal draws; undefined when
 * it holds none. File rows and ids on the command line say it alike (review20d D2).
 */
export function invisibleIn(what: string, id: string): string | undefined {
  const found = invisibleCharacter(id);
  if (found === undefined) return undefined;
  const shown = JSON.stringify(id).replace(/\p{Cf}/gu, unicodeEscape);
  return `${what} ${shown} holds an invisible character (${found.name}) at ${found.at}: type the id again, or delete that character`;
}

/**
 * The first control character of a text (Unicode Cc: C0, DEL, C1; a tab too unless `tab`), as
 * `U+000A`, and its place counted in characters from 1; undefined when there is none. No id, key
 * or header value holds one, and undici refuses to send a header with one: before svc's own
 * check, that refusal read as "cannot reach … is the server running?" (attack24c F1).
 */
export function controlCharacter(
  text: string,
  options: { tab?: boolean } = {},
): { name: string; at: number } | undefined {
  let at = 0;
  for (const char of text) {
    at++;
    if (!/\p{Cc}/u.test(char) || (options.tab === true && char === '\t')) continue;
    return { name: codePoint(char), at };
  }
  return undefined;
}

/**
 * Why a header cannot carry a character past U+007F, by its code point: past U+00FF undici refuses
 * the header; U+0080–U+00FF it sends as one Latin-1 byte (obs-text), where curl and gh send the
 * UTF-8 bytes typed. The one wording of nonAsciiIn and nonAsciiCharacter.
 */
function headerCannot(code: number): string {
  return code > 0xff
    ? 'which a header cannot carry'
    : 'which a header carries only as one Latin-1 byte (obs-text), that servers and proxies read differently';
}

/**
 * The first character past U+007F of a text (nonAsciiIn's rule, for a value not to be quoted: a
 * token), as `U+20AC`-style words (`€ (U+20AC)`; `U+200B ZERO WIDTH SPACE` for an invisible one a
 * paste adds, `U+00A0` for a space), its place counted in characters from 1, and why no header
 * can carry it; undefined when the text is ASCII. Tokens and a stored credential say it alike,
 * without the value.
 */
export function nonAsciiCharacter(text: string): { name: string; at: number; why: string } | undefined {
  let at = 0;
  for (const char of text) {
    at++;
    const code = char.codePointAt(0)!;
    if (code <= 0x7f) continue;
    const hex = codePoint(char);
    const why = headerCannot(code);
    // Shown itself only when a terminal draws it as itself (not a space, mark or format character).
    const named = INVISIBLE_NAMES[code];
    if (named !== undefined) return { name: `${hex} ${named}`, at, why };
    return { name: /[\p{C}\p{Z}\p{M}]/u.test(char) ? hex : `${char} (${hex})`, at, why };
  }
  return undefined;
}

/**
 * A value sent in a header (an id setting, an idempotency key, an `svc api -H` value) holding a
 * control character, in words with the fix, the value quoted with each control and invisible
 * character as its escape; undefined when it holds none. `what` names where it came from
 * (`--org`, `SVC_ORG`, `org in profile "default"`), `fix` what to do.
 */
export function controlIn(
  what: string,
  value: string,
  fix: string,
  options: { tab?: boolean; shown?: string | undefined } = {},
): string | undefined {
  const found = controlCharacter(value, options);
  if (found === undefined) return undefined;
  return `${what} ${options.shown ?? escapedQuote(value)} holds a control character (${found.name}) at ${found.at}: ${fix}`;
}

/**
 * A value sent in a header (`svc api -H`, the org, an idempotency key) holding a character past
 * U+007F, in words with the fix; undefined when it is ASCII. undici sends U+0080–U+00FF as one
 * Latin-1 byte (obs-text, RFC 9110 §5.5: opaque to a recipient, and no new field should use it),
 * where curl and gh send the UTF-8 bytes typed, so servers and proxies read it differently; past
 * U+00FF it refuses the header, which read as "a bug in svc". The one rule for every value svc
 * puts in a header, checked (after controlIn: C1 is a control character) before anything is sent.
 */
export function nonAsciiIn(
  what: string,
  value: string,
  fix: string,
  /** How the value is shown instead of quoted whole (a secret header's: `[redacted]`). */
  shown?: string,
): string | undefined {
  let at = 0;
  for (const char of value) {
    at++;
    const code = char.codePointAt(0)!;
    if (code <= 0x7f) continue;
    const why = headerCannot(code);
    return `${what} ${shown ?? escapedQuote(value)} holds ${char} (${codePoint(char)}) at ${at}, ${why}: ${fix}`;
  }
  return undefined;
}

/**
 * A value in double quotes, every control and invisible character as its escape (`"a\u0007b"`,
 * `"a\nb"`); over 200 characters, its first 60 and last 40 and its length, as output/format's
 * `quoted` cuts a value an error repeats: `"xxxx…xxxx" (10000 characters)`.
 */
export function escapedQuote(value: string): string {
  const all = [...value];
  const shown = all.length <= 200 ? value : `${all.slice(0, 60).join('')}…${all.slice(-40).join('')}`;
  const text = JSON.stringify(shown).replace(/[\p{Cc}\p{Cf}]/gu, unicodeEscape);
  return all.length <= 200 ? text : `${text} (${all.length} characters)`;
}

/**
 * Terminal escape sequences (CSI `ESC [ … final`, OSC/DCS/APC/PM/SOS to BEL or ST, two-byte `ESC X`,
 * the one-byte C1 CSI): what a terminal performs instead of drawing.
 */
const ESCAPE_SEQUENCE =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -~]?/gu;

/**
 * Characters drawn as nothing: controls, format characters (U+200B, U+00AD, U+FEFF, bidi marks),
 * spaces and separators, marks with nothing to mark, and the blanks that are letters or symbols
 * to Unicode (U+2800 BRAILLE PATTERN BLANK, the Hangul fillers U+115F U+1160 U+3164 U+FFA0).
 */
const NOTHING_CLASS = '\\p{C}\\p{Z}\\p{M}\\s\\u2800\\u115f\\u1160\\u3164\\uffa0';
const DRAWN_AS_NOTHING = new RegExp(`[${NOTHING_CLASS}]`, 'u');

/**
 * A regex (with the `u` flag) matching a character a reader sees: the JSON Schema `pattern` of a
 * text that must show something (the file's justification). It cannot take escape sequences out
 * first, as nothingVisible does: svc refuses `\u001b[0m` alone, a schema passes it.
 */
export const SHOWS_SOMETHING_PATTERN = `[^${NOTHING_CLASS}]`;

/**
 * Undefined when a text shows something (a character a reader sees, once escape sequences are
 * taken out); else the words of what it holds instead: `U+200B, U+2800` (its first three kinds of
 * character, `…` after; `a terminal escape sequence` for one), or `nothing`. The one rule of "has visible text" for a text a person must
 * write and others read (a grant's justification, by flag or in a file: attack27a F2), where JS's
 * trim() takes out spaces but not U+200B, a braille blank or `\u001b[0m`.
 */
export function nothingVisible(text: string): string | undefined {
  const bare = text.replace(ESCAPE_SEQUENCE, '');
  for (const char of bare) if (!DRAWN_AS_NOTHING.test(char)) return undefined;
  const kinds = [
    ...(bare === text ? [] : ['a terminal escape sequence']),
    ...[...new Set(bare)].map(codePoint),
  ];
  if (kinds.length === 0) return 'nothing';
  return `${kinds.slice(0, 3).join(', ')}${kinds.length > 3 ? ' …' : ''}`;
}

/** A reason that shows nothing (nothingVisible), in words: `--justification must say why: it holds only invisible characters (U+200B)`. */
export function saysNothing(what: string, text: string): string | undefined {
  const nothing = nothingVisible(text);
  return nothing === undefined
    ? undefined
    : `${what} must say why: it holds only invisible characters (${nothing})`;
}
