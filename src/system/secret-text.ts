/**
 * The one way svc reads a secret from text (a file, standard input, an environment variable):
 * files and `echo` end text with a newline, so exactly one trailing newline (LF or CRLF) is
 * removed, silently. Any other surrounding whitespace is reported, since a real secret never has
 * any; then a token or client secret (which cannot contain whitespace) is trimmed, while a
 * webhook signing secret (an HMAC key: any bytes, secretFromBytes) is used exactly as given.
 */
export interface SecretText {
  secret: string;
  /** Set when whitespace around the secret remained after the one newline was removed. */
  warning?: string;
}

const whitespaceAround = (from: string) =>
  `${from} has whitespace around the secret (beyond one final newline)`;

export function secretFromText(raw: string, from: string, options: { trim: boolean }): SecretText {
  const secret = raw.endsWith('\r\n') ? raw.slice(0, -2) : raw.endsWith('\n') ? raw.slice(0, -1) : raw;
  if (secret.trim() === secret || secret.trim() === '') return { secret };
  const what = whitespaceAround(from);
  return options.trim
    ? { secret: secret.trim(), warning: `${what}; it was removed` }
    : { secret, warning: `${what}; it is used exactly as given` };
}

/** ASCII whitespace: the bytes a secret's surroundings are checked for (never part of a UTF-8 sequence). */
const isSpaceByte = (byte: number | undefined) =>
  byte === 0x20 || (byte !== undefined && byte >= 0x09 && byte <= 0x0d);

/** A secret's bytes without surrounding ASCII whitespace. */
export function trimBytes(bytes: Buffer): Buffer {
  let start = 0;
  let end = bytes.length;
  while (start < end && isSpaceByte(bytes[start])) start++;
  while (end > start && isSpaceByte(bytes[end - 1])) end--;
  return bytes.subarray(start, end);
}

/**
 * The same reading for a secret that is bytes (a webhook signing secret, an HMAC key): exactly
 * one final newline removed, every other byte kept as given (none is decoded, so two different
 * keys never become the same one), surrounding whitespace reported.
 */
export function secretFromBytes(raw: Buffer, from: string): { secret: Buffer; warning?: string } {
  const cut = raw.at(-1) === 0x0a ? (raw.at(-2) === 0x0d ? 2 : 1) : 0;
  const secret = raw.subarray(0, raw.length - cut);
  const trimmed = trimBytes(secret);
  if (trimmed.length === secret.length || trimmed.length === 0) return { secret };
  return { secret, warning: `${whitespaceAround(from)}; it is used exactly as given` };
}

/**
 * What makes a credential unsendable in an HTTP header: `a line break` (CR, LF) or `a control
 * character` (any other C0 control or DEL) inside it; undefined when it has none.
 */
export function controlCharacterIn(text: string): string | undefined {
  if (/[\r\n]/.test(text)) return 'a line break';
  if (/[\x00-\x1f\x7f]/.test(text)) return 'a control character';
  return undefined;
}
