import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { parse as parseSync } from 'csv-parse/sync';
import { notUtf8, notUtf8Words } from '../system/input.js';
import { jsonContentProblem } from '../system/user-json.js';
import { CSV_OPTIONS, head, MAX_RECORD_BYTES, readCsv, UTF8_BOM } from './csv.js';

export { MAX_RECORD_BYTES } from './csv.js';

/**
 * Streaming readers for bulk input files: CSV with a header row (BOM, CRLF or LF, quoted fields,
 * blank lines skipped) or NDJSON (one object per line). Records are read, handed on and released
 * one at a time, so a file of a million rows costs the memory of a few rows. Structural problems
 * come back per line, as events, so a caller can report every bad line.
 */

export type InputEvent =
  | { kind: 'header'; line: number; columns: string[] }
  /** `offset`: the byte where the record starts, to read it again (recordAt). */
  | { kind: 'record'; line: number; offset: number; fields: Record<string, unknown> }
  | { kind: 'problem'; line: number; message: string };

/** CSV when the name says so or the first non-blank character is not `{`; NDJSON otherwise. */
export function detectFormat(name: string, firstBytes: Buffer): 'csv' | 'ndjson' {
  if (/\.csv$/i.test(name)) return 'csv';
  if (/\.(nd)?jsonl?$/i.test(name)) return 'ndjson';
  return firstBytes
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('{')
    ? 'ndjson'
    : 'csv';
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
  const format = detectFormat(name, head(path));
  yield* format === 'csv' ? readCsv(path, columnName) : readNdjson(path);
}

/**
 * NDJSON, line by line: each line is split off the byte stream and decoded on its own (so a
 * character cut between two chunks is whole again), then parsed and released.
 */
async function* readNdjson(path: string): AsyncGenerator<InputEvent> {
  let line = 1;
  let consumed = 0;
  let lineStart = 0;
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let afterCR = false;
  const take = (): InputEvent | undefined => {
    const bytes = Buffer.concat(parts, size);
    parts = [];
    size = 0;
    const number = line++;
    if (tooLong) {
      tooLong = false;
      return { kind: 'problem', line: number, message: `the line is longer than ${MAX_RECORD_BYTES} bytes` };
    }
    return ndjsonLine(bytes, number, lineStart);
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
      const event = take();
      if (event) yield event;
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
  if (size > 0 || tooLong) {
    const event = take();
    if (event) yield event;
  }

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

function ndjsonLine(bytes: Buffer, line: number, offset: number): InputEvent | undefined {
  // Bytes that are not UTF-8 would be read as U+FFFD, and that is what would be sent and stored.
  const bad = notUtf8(bytes);
  if (bad !== undefined) {
    return { kind: 'problem', line, message: notUtf8Words({ ...bad, offset: offset + bad.offset }) };
  }
  const raw = (offset === 0 && bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes).toString(
    'utf8',
  );
  if (raw.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { kind: 'problem', line, message: `not valid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'problem', line, message: 'each line must be a JSON object' };
  }
  // A key given twice, or a number JSON.parse changed, would send what the line does not say.
  const problem = jsonContentProblem(raw);
  if (problem !== undefined) return { kind: 'problem', line, message: problem };
  return { kind: 'record', line, offset, fields: value as Record<string, unknown> };
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
        const end = bytes.findIndex((b) => b === 0x0a || b === 0x0d);
        if (end === -1 && !whole) continue;
        const event = ndjsonLine(end === -1 ? bytes : bytes.subarray(0, end), 0, offset);
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
