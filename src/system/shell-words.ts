/**
 * Text as words of a shell command line that bash, zsh, sh and fish all read alike. Single quotes
 * keep everything literal in the POSIX shells, but fish reads `\\` and `\'` inside them as escapes:
 * so a backslash is written outside the quotes, as `\\`, which every one of them reads as `\`.
 */

/** `text` quoted as one word whatever it holds: single quotes, a `'` as `'\''`, a `\` as `\\` between quotes. */
export function shellQuote(text: string): string {
  if (text === '') return "''";
  return text
    .split('\\')
    .map((part) => (part === '' ? '' : `'${part.replace(/'/g, "'\\''")}'`))
    .join('\\\\');
}

/**
 * `text` as one word of a command line svc shows for a person to run again (a listing's
 * continuation, a step of the tour): as it is when it is plain, else quoted (`shellQuote`).
 */
export function shellWord(text: string): string {
  // Not bare with a leading `=`: zsh reads `=word` as the path of the command `word`.
  return /^[\w./:@-][\w./:=@-]*$/.test(text) ? text : shellQuote(text);
}

/**
 * A path as one word of a command line svc prints: `./-x` for one that starts with `-`, which
 * would otherwise read as a flag, or `-` as standard input.
 */
export function pathWord(path: string): string {
  return shellWord(path.startsWith('-') ? `./${path}` : path);
}
