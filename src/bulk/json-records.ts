import { createReadStream } from 'node:fs';
import { keepNumbersAsTheyCame } from '../api/numbers-as-they-came.js';
import { notUtf8 } from '../api/utf8.js';
import { notUtf8Words } from '../system/input.js';
import { jsonContentProblem, tooDeep } from '../system/user-json.js';
import { MAX_RECORD_BYTES, UTF8_BOM } from './csv.js';
import type { InputEvent } from './readers.js';

/**
 * The JSON records of bulk files (see readers.ts): one NDJSON line, or one element of a JSON array
 * (`jq .` output, an HR tool's export), read as a stream: one element at a time is held, so an
 * array costs the memory NDJSON does. An element's line is the line it starts on, and is its key
 * in the run: two elements starting on one line (`jq -c .`) are refused, with how to split them.
 */

/** One JSON record's bytes, checked: a record event, a problem, or undefined for a blank line. */
export function jsonRecord(
  bytes: Buffer,
  line: number,
  offset: number,
  what = 'each line must be a JSON object',
): InputEvent | undefined {
  // Bytes that are not UTF-8 would be read as U+FFFD, and that is what would be sent and stored.
  const bad = notUtf8(bytes);
  if (bad !== undefined) {
    return { kind: 'problem', line, message: notUtf8Words({ ...bad, offset: offset + bad.offset }) };
  }
  const raw = (offset === 0 && bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes).toString(
    'utf8',
  );
  if (raw.trim() === '') return undefined;
  // Past the file's start a BOM is the start of another file joined on (cat a.ndjson b.ndjson).
  if (raw.startsWith('\uFEFF')) {
    return {
      kind: 'problem',
      line,
      message:
        "it starts with a byte-order mark (U+FEFF): files joined with cat? remove it: sed '2,$s/^\\xEF\\xBB\\xBF//'",
    };
  }
  // A value deeper than svc sends would overflow the stack of the words that describe it.
  const deep = tooDeep(raw, what.includes('element') ? 'the element' : 'the line');
  if (deep !== undefined) return { kind: 'problem', line, message: deep };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { kind: 'problem', line, message: `not valid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'problem', line, message: what };
  }
  // A key given twice, or a number JSON.parse changed, would send what the line does not say.
  const problem = jsonContentProblem(raw);
  if (problem !== undefined) return { kind: 'problem', line, message: problem };
  // Its numbers as written, for the words that quote a field (`got 12.50`, not 12.5: attack27b F8).
  keepNumbersAsTheyCame(raw, value);
  return { kind: 'record', line, offset, fields: value as Record<string, unknown> };
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * Where the JSON object or array at the start of `bytes` (after blanks and a BOM) ends: the index
 * after its closing bracket, or undefined when it does not end within them (to read a record at
 * an offset again: readers.ts recordAt).
 */
export function valueEnd(bytes: Uint8Array): number | undefined {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE || c === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

const SPLIT =
  "put each element on lines of its own (jq . FILE > NEW), or write NDJSON (jq -c '.[]' FILE > NEW)";

/** The elements of a JSON array file, each a record (or a problem) on the line it starts on. */
export async function* readJsonArray(path: string): AsyncGenerator<InputEvent> {
  /** Where the scan is: before `[`, before an element (`first`: or `]`), in one, after one, after `]`. */
  let state: 'open' | 'first' | 'next' | 'value' | 'after' | 'end' = 'open';
  let line = 1;
  let afterCR = false;
  let pos = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let value = Buffer.allocUnsafe(1 << 12);
  let size = 0;
  let tooLong = false;
  let start = { line: 0, offset: 0 };
  let lastLine = 0;
  const keep = (c: number) => {
    if (tooLong) return;
    if (size >= MAX_RECORD_BYTES) {
      tooLong = true;
      return;
    }
    if (size === value.length) {
      const bigger = Buffer.allocUnsafe(Math.min(value.length * 2, MAX_RECORD_BYTES));
      value.copy(bigger, 0, 0, size);
      value = bigger;
    }
    value[size++] = c;
  };
  const element = (): InputEvent | undefined => {
    const bytes = Buffer.from(value.subarray(0, size));
    size = 0;
    if (tooLong) {
      tooLong = false;
      return {
        kind: 'problem',
        line: start.line,
        message: `the element is longer than ${MAX_RECORD_BYTES} bytes`,
      };
    }
    return jsonRecord(bytes, start.line, start.offset, 'each element of the array must be a JSON object');
  };
  /** A problem that ends the reading: the rest of the array cannot be told apart. */
  const stop = (message: string): InputEvent => ({ kind: 'problem', line, message });
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++, pos++) {
      const c = chunk[i]!;
      if (pos < 3 && state === 'open' && c === UTF8_BOM[pos]) continue;
      // Lines: LF, CR and CRLF (one) each end one; the line before the byte is where it is.
      const lineEnd = c === 0x0d || (c === 0x0a && !afterCR);
      afterCR = c === 0x0d;
      if (state === 'value') {
        let bare = false;
        if (inString) {
          keep(c);
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
          if (!inString && depth === 0) state = 'after';
        } else if (depth > 0) {
          keep(c);
          if (c === QUOTE) inString = true;
          else if (c === OPEN || c === OPEN_ARRAY) depth++;
          else if ((c === CLOSE || c === CLOSE_ARRAY) && --depth === 0) state = 'after';
        } else if (c !== COMMA && c !== CLOSE_ARRAY && !isSpace(c)) {
          // A bare value (a number, true) goes on to a delimiter, which is the array's.
          keep(c);
        } else {
          bare = true;
          state = 'after';
        }
        if (lineEnd) line++;
        if (state === 'value') continue;
        const event = element();
        if (event) yield event;
        // The delimiter that ended a bare value is read below; the closing bracket or quote of an
        // object, a nested array or a string is the element's own (a nested `]` is not the outer one).
        if (!bare || lineEnd) continue;
      }
      if (lineEnd) line++;
      if (isSpace(c)) continue;
      if (state === 'open') {
        if (c !== OPEN_ARRAY) {
          yield stop('not a JSON array');
          return;
        }
        state = 'first';
      } else if (state === 'after') {
        if (c === COMMA) state = 'next';
        else if (c === CLOSE_ARRAY) state = 'end';
        else {
          yield stop(`expected , or ] after the element that starts on line ${start.line}`);
          return;
        }
      } else if (state === 'end') {
        yield stop('more text after the end of the JSON array');
        return;
      } else if (state === 'first' && c === CLOSE_ARRAY) {
        state = 'end';
      } else if (state === 'next' && c === CLOSE_ARRAY) {
        yield stop('a comma after the last element of the array; remove it');
        return;
      } else {
        if (line === lastLine) {
          yield stop(`a second element of the JSON array starts on line ${line}; ${SPLIT}`);
          return;
        }
        lastLine = line;
        start = { line, offset: pos };
        state = 'value';
        depth = c === OPEN || c === OPEN_ARRAY ? 1 : 0;
        inString = c === QUOTE;
        escaped = false;
        keep(c);
      }
    }
  }
  if (state === 'value' && depth === 0 && !inString) {
    const event = element();
    if (event) yield event;
    state = 'after';
  }
  if (state !== 'end') yield stop('the JSON array is not closed: ] is missing at the end');
}
