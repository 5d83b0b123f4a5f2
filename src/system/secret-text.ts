/**
 * The one way svc reads a secret from text (a file, standard input, an environment variable):
 * files and `echo` end text with a newline, so exactly one trailing newline (LF or CRLF) is
 * removed, silently. Any other surrounding whitespace is reported, since a real secret never has
 * any; then a token or client secret (which cannot contain whitespace) is trimmed, while a
 * webhook signing secret (an HMAC key: any bytes) is used exactly as given.
 */
export interface SecretText {
  secret: string;
  /** Set when whitespace around the secret remained after the one newline was removed. */
  warning?: string;
}

export function secretFromText(raw: string, from: string, options: { trim: boolean }): SecretText {
  const secret = raw.endsWith('\r\n') ? raw.slice(0, -2) : raw.endsWith('\n') ? raw.slice(0, -1) : raw;
  if (secret.trim() === secret || secret.trim() === '') return { secret };
  const what = `${from} has whitespace around the secret (beyond one final newline)`;
  return options.trim
    ? { secret: secret.trim(), warning: `${what}; it was removed` }
    : { secret, warning: `${what}; it is used exactly as given` };
}
