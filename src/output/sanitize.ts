/**
 * The one terminal sanitizer. Text from the server or from any request body can carry escape
 * sequences (OSC 52 writes the clipboard, OSC 0 the window title, CSI clears the screen), C1
 * controls (0x9B is a one-byte CSI) and bidirectional overrides that make text lie about what
 * it says (Trojan Source). Before such text reaches a terminal, each of those characters is
 * replaced by a visible escape — `\x1b`, `\x9b`, `\u202e` — so the user sees that it was there
 * and nothing is performed. Tab and newline are kept (callers that need one line remove them:
 * `oneLine` for svc's messages, `cellText` for cells). U+2028 and U+2029, which a terminal draws
 * as nothing but Python's `splitlines()` (and YAML 1.1) read as line breaks, are escaped too, so a
 * value never splits a row of a pipe.
 */

import { unicodeEscape } from '../api/characters.js';

/**
 * C0 controls but tab and newline, DEL, C1 controls, the bidi marks, embeddings, overrides and
 * isolates, the line and paragraph separators, the word joiners and a byte-order mark inside text.
 * The zero-width space, the soft hyphen and the zero-width joiner and non-joiner stay drawn: Thai,
 * Khmer and Burmese separate words with the first, emoji (👩‍💻) and Persian and Indic words need
 * the joiners (review20b F7); an id holding one is refused where ids are read, its message showing
 * it escaped (src/commands/roles/rows.ts), and JSON escapes them below.
 */
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u2028\u2029\ufeff]/g;

/** In JSON text, the unsafe characters JSON.stringify leaves as they are (it escapes C0 itself). */
const UNSAFE_IN_JSON =
  /[\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u2028\u2029\ufeff]/g;

/** In JSON text, what a line reader may split a line at though JSON.stringify leaves it raw: NEL, LS, PS. */
const BREAKS_IN_JSON = /[\u0085\u2028\u2029]/g;

/** An unsafe character as a terminal shows it: `\xad` up to U+00FF, else its `\u2028` escape (unicodeEscape). */
function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : unicodeEscape(char);
}

/** Text about to reach a terminal (tables, TSV, messages, traces, raw bodies): unsafe characters made visible. */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, visible);
}

/**
 * A message of svc's own (a ✓ line, a warning, a note) with server values in it: one line whatever
 * they hold, a line break written `\n` (a name "CI reader\n✓ Revoked key_payroll" cannot print a
 * second, forged ✓ line), and every other unsafe character made visible as escapeForTerminal does.
 */
export function oneLine(text: string): string {
  return escapeForTerminal(text).replace(/\n/g, '\\n');
}

/**
 * JSON text about to reach a terminal: what JSON.stringify leaves raw (DEL, C1, bidi controls)
 * becomes a `\uXXXX` escape. Those characters only occur inside strings, where the escape is
 * the same JSON value, so the output still parses to exactly the same document.
 */
export function escapeJsonForTerminal(json: string): string {
  return json.replace(UNSAFE_IN_JSON, unicodeEscape);
}

/**
 * One line of JSON (NDJSON, a stream's line) as every line reader takes it: NEL, LS and PS, which
 * JSON.stringify leaves raw inside strings and Python's `splitlines()` breaks at, become `\u0085`,
 * `\u2028`, `\u2029` (the same JSON value), in a pipe as on a terminal.
 */
export function jsonOneLine(json: string): string {
  return json.replace(BREAKS_IN_JSON, unicodeEscape);
}
