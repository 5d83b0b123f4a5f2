import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { parse as parseSync } from 'csv-parse/sync';
import { utf16Of, utf16Words } from '../system/input.js';
import { CSV_OPTIONS, head, MAX_RECORD_BYTES, readCsv, UTF8_BOM } from './csv.js';
import { jsonRecord, readJsonArray, valueEnd } from './json-records.js';

export { MAX_RECORD_BYTES } from './csv.js';

/**
 * Streaming readers for bulk input files: CSV with a header row (BOM, CRLF or LF, quoted fields,
 * blank lines skipped), NDJSON (one object per line) or a JSON array of objects (json-records.ts). Records are read, handed on and released
 * one at a time, so a file of a million rows costs the memory of a few rows. Structural problems
 * come back per line, as events, so a caller can report every bad line.
 */

export type InputEvent =
  | { kind: 'header'; line: number; columns: string[] }
  /** `offset`: the byte where the record starts, to read it again (recordAt). */
  | { kind: 'record'; line: number; offset: number; fields: Record<string, unknown> }
  | { kind: 'problem'; line: number; message: string };

/**
 * CSV when the name says so; a JSON array when the first non-blank character is `[`; NDJSON when
 * the name says so or it is `{`; CSV otherwise.
 */
export function detectFormat(name: string, firstBytes: Buffer): 'csv' | 'ndjson' | 'json-array' {
  if (/\.csv$/i.test(name)) return 'csv';
  const first = firstBytes
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()[0];
  if (first === '[') return 'json-array';
  if (/\.(nd)?jsonl?$/i.test(name)) return 'ndjson';
  return first === '{' ? 'ndjson' : 'csv';
}

/**
 * Every header, record and problem of the file at `path`, in order. `name` picks the format;
 * `columnName` reads a CSV header's names (a record's fields are named by what it returns).
 */
export async function* readInput(
  path: string,
  name: string,
  columnName: (column: string) => string = (column) => column,
): AsyncGenerator<InputEvent> {
  const first = head(path);
  // UTF-16 (with a BOM or without: then it reads as ASCII with NULs between): one problem, not a
  // header or JSON one per line. The rule every text input shares (system/input.ts textProblem).
  const utf16 = utf16Of(first);
  if (utf16) {
    yield { kind: 'problem', line: 1, message: utf16Words(utf16) };
    return;
  }
  const wrong = notItsFormat(name, first);
  if (wrong) {
    yield { kind: 'problem', line: 1, message: wrong };
    return;
  }
  const format = detectFormat(name, first);
  yield* format === 'csv'
    ? readCsv(path, columnName)
    : format === 'json-array'
      ? readJsonArray(path)
      : readNdjson(path);
}

/** A zip archive (.xlsx, .ods) and an OLE compound file (.xls): a workbook, not text. */
const WORKBOOKS = [Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from([0xd0, 0xcf, 0x11, 0xe0])];

/**
 * What is wrong when a file is not the format its name says (the name picks it, detectFormat):
 * a spreadsheet workbook, JSON in a `.csv`, or a `.json`/`.ndjson` that does not start as JSON
 * does. Undefined when it may be what the name says; a file without a name (stdin) is read by content.
 */
function notItsFormat(name: string, first: Buffer): string | undefined {
  if (WORKBOOKS.some((magic) => first.subarray(0, magic.length).equals(magic))) {
    return 'the file is a spreadsheet workbook, not CSV: in Excel, File › Save As › CSV UTF-8 (Comma delimited) (*.csv), and give that file (LibreOffice: Save As › Text CSV, UTF-8, comma)';
  }
  const start = first
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()[0];
  if (start === undefined) return undefined;
  const extension = /\.[^./\\]*$/.exec(name)?.[0];
  if (/^\.csv$/i.test(extension ?? '') && (start === '{' || start === '[')) {
    return `the file is named ${extension} but holds JSON (it starts with ${start}): svc reads the format the name says; rename it .ndjson (one object per line) or .json, or write CSV`;
  }
  if (/^\.(nd)?jsonl?$/i.test(extension ?? '') && start !== '{' && start !== '[') {
    return `the file is named ${extension} but does not start with { or [ (CSV?): svc reads the format the name says; rename it .csv if it is CSV`;
  }
  return undefined;
}

const SPREAD =
  'one JSON object spread over several lines; --file takes NDJSON (one object per line), a JSON array or CSV: jq -c . FILE > NEW';

/**
 * Whether a line is `{` alone (after blanks and a BOM): how `jq .`, JSON.stringify(v, null, 2) and
 * Python's json.dump(indent=…) start an object. A line cut short (`{"user": "a",`) is a line's own problem.
 */
function opensObject(bytes: Buffer): boolean {
  const text = (bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes).toString('latin1');
  return text.trim() === '{';
}

/**
 * Whether a line that is not valid JSON opens an object it does not close (`{"user": "a",`): the
 * first line of an object wrapped by hand, or a line cut short; the next line tells which.
 */
function leftOpen(bytes: Buffer): boolean {
  const text = bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes;
  return text.toString('latin1').trimStart().startsWith('{') && valueEnd(text) === undefined;
}

/** Whether a line goes on an object left open before it: it is not blank and opens no object. */
function goesOn(bytes: Buffer): boolean {
  const text = bytes.toString('latin1').trim();
  return text !== '' && !text.startsWith('{');
}

/**
 * NDJSON, line by line: each line is split off the byte stream and decoded on its own (so a
 * character cut between two chunks is whole again), then parsed and released. A line that leaves
 * an object open is judged with the next line that is not blank: one that goes on with the object
 * (a key, a `}`) makes it one object spread over lines, one problem; otherwise it was a line cut
 * short, its own problem.
 */
async function* readNdjson(path: string): AsyncGenerator<InputEvent> {
  let line = 1;
  let consumed = 0;
  let lineStart = 0;
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let afterCR = false;
  /** A line opened an object it did not close: what follows cannot be told apart, the reading stops. */
  let spread = false;
  /** The problem of a line left open (leftOpen), until the next line that is not blank says what it is. */
  let open: InputEvent | undefined;
  const take = (): InputEvent[] => {
    const bytes = Buffer.concat(parts, size);
    parts = [];
    size = 0;
    const number = line++;
    if (tooLong) {
      tooLong = false;
      const long = {
        kind: 'problem',
        line: number,
        message: `the line is longer than ${MAX_RECORD_BYTES} bytes`,
      };
      return [...held(), long as InputEvent];
    }
    if (open !== undefined && goesOn(bytes)) {
      spread = true;
      return [{ kind: 'problem', line: open.line, message: SPREAD }];
    }
    // `jq .` output of one object (or of several, one after another): one problem, not one per line.
    if (opensObject(bytes)) {
      spread = true;
      return [...held(), { kind: 'problem', line: number, message: SPREAD }];
    }
    const event = jsonRecord(bytes, number, lineStart);
    if (event === undefined) return [];
    const before = held();
    if (event.kind === 'problem' && leftOpen(bytes)) {
      open = event;
      return before;
    }
    return [...before, event];
  };
  /** The problem of a line left open, now known to be its own (and no longer held). */
  const held = (): InputEvent[] => {
    const event = open;
    open = undefined;
    return event === undefined ? [] : [event];
  };
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (c !== 0x0a && c !== 0x0d) continue;
      // LF after CR ends nothing more: CRLF is one line end.
      if (c === 0x0a && afterCR && i === from) {
        afterCR = false;
        from = i + 1;
        lineStart = consumed + from;
        continue;
      }
      keep(chunk.subarray(from, i));
      yield* take();
      if (spread) return;
      afterCR = c === 0x0d;
      from = i + 1;
      lineStart = consumed + from;
    }
    if (from < chunk.length) {
      afterCR = false;
      keep(chunk.subarray(from));
    }
    consumed += chunk.length;
  }
  if (size > 0 || tooLong) yield* take();
  yield* held();

  function keep(bytes: Buffer): void {
    if (tooLong || bytes.length === 0) return;
    if (size + bytes.length > MAX_RECORD_BYTES) {
      tooLong = true;
      parts = [];
      size = 0;
      return;
    }
    // A copy: a slice would keep the whole chunk alive.
    parts.push(Buffer.from(bytes));
    size += bytes.length;
  }
}

/**
 * The record that starts at `offset` of a file read before (a CSV file's records are named by
 * its header's `columns`), read again: to confirm a repeat that SeenKeys found by its hash.
 */
export function recordAt(
  path: string,
  columns: string[] | undefined,
  offset: number,
): Record<string, unknown> {
  const fd = openSync(path, 'r');
  try {
    for (let size = 1 << 16; ; size *= 4) {
      const window = Buffer.alloc(size);
      const read = readSync(fd, window, 0, size, offset);
      const bytes = window.subarray(0, read);
      const whole = read < size || size >= MAX_RECORD_BYTES;
      if (columns === undefined) {
        // An NDJSON line's object, or an array's element over several lines.
        const end = valueEnd(bytes);
        if (end === undefined && !whole) continue;
        const event = jsonRecord(end === undefined ? bytes : bytes.subarray(0, end), 0, offset);
        if (event?.kind === 'record') return event.fields;
        throw new Error(`no record at offset ${offset} of ${path}`);
      }
      try {
        const [first] = parseSync(bytes, {
          ...CSV_OPTIONS,
          bom: offset === 0,
          columns,
          to: 1,
          info: true,
        }) as Array<{ record: Record<string, unknown>; info: { bytes: number } }>;
        // A record that runs to the window's end may go on past it: read a larger window.
        if (first && !whole && first.info.bytes >= bytes.length) continue;
        if (first) return first.record;
      } catch (error) {
        if (whole) throw error;
        continue;
      }
      throw new Error(`no record at offset ${offset} of ${path}`);
    }
  } finally {
    closeSync(fd);
  }
}
