/**
 * The one terminal sanitizer. Text from the server or from any request body can carry escape
 * sequences (OSC 52 writes the clipboard, OSC 0 the window title, CSI clears the screen), C1
 * controls (0x9B is a one-byte CSI) and bidirectional overrides that make text lie about what
 * it says (Trojan Source). Before such text reaches a terminal, each of those characters is
 * replaced by a visible escape — `\x1b`, `\x9b`, `\u202e` — so the user sees that it was there
 * and nothing is performed. Tab and newline are kept (callers that need one line remove them).
 */

/** C0 controls but tab and newline, DEL, C1 controls, and the bidi marks, embeddings, overrides and isolates. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** In JSON text, the unsafe characters JSON.stringify leaves as they are (it escapes C0 itself). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text about to reach a terminal (tables, TSV, messages, traces, raw bodies): unsafe characters made visible. */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, visible);
}

/**
 * JSON text about to reach a terminal: what JSON.stringify leaves raw (DEL, C1, bidi controls)
 * becomes a `\uXXXX` escape. Those characters only occur inside strings, where the escape is
 * the same JSON value, so the output still parses to exactly the same document.
 */
export function escapeJsonForTerminal(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
