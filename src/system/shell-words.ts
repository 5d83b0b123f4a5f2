/** Text as words of a POSIX shell command line (bash, zsh and sh read single quotes alike). */

/** `text` single-quoted: one word whatever it holds (a `'` is closed, escaped and reopened). */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/**
 * `text` as one word of a command line svc shows for a person to run again (a listing's
 * continuation, a step of the tour): as it is when it is plain, else single-quoted.
 */
export function shellWord(text: string): string {
  // Not bare with a leading `=`: zsh reads `=word` as the path of the command `word`.
  return /^[\w./:@-][\w./:=@-]*$/.test(text) ? text : shellQuote(text);
}
