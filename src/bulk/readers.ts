import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';

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

/** The longest record (CSV) or line (NDJSON) read: anything longer is a broken file. */
export const MAX_RECORD_BYTES = 1 << 20;

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

/** Every header, record and problem of the file at `path`, in order. `name` picks the format. */
export async function* readInput(path: string, name: string): AsyncGenerator<InputEvent> {
  const format = detectFormat(name, head(path));
  yield* format === 'csv' ? readCsv(path) : readNdjson(path);
}

function head(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(4096);
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0));
  } finally {
    closeSync(fd);
  }
}

/**
 * Line numbers of byte offsets in a stream seen chunk by chunk (CRLF, LF and CR each end a line).
 * csv-parse's own line count goes wrong after a quoted CRLF, so lines are counted here; offsets
 * only move forward, and chunks behind the last offset asked for are let go.
 */
class LineCounter {
  #chunks: Buffer[] = [];
  /** Offset of #chunks[0]'s first byte. */
  #base = 0;
  #pos = 0;
  #line = 1;
  #afterCR = false;

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  /** The offset reached: after recordLine(), where the record starts. */
  get position(): number {
    return this.#pos;
  }

  /** The line of the first byte at or after `offset` that is not blank (where a record starts). */
  recordLine(offset: number): number {
    for (;;) {
      const byte = this.#byte(this.#pos);
      if (byte === undefined) return this.#line;
      const blank = byte === 0x0a || byte === 0x0d || byte === 0x20 || byte === 0x09;
      if (this.#pos >= offset && !blank) return this.#line;
      this.#step(byte);
    }
  }

  /** Moves past the end of the current line; returns the offset there. */
  skipLine(): number {
    for (;;) {
      const byte = this.#byte(this.#pos);
      if (byte === undefined) return this.#pos;
      const before = this.#line;
      this.#step(byte);
      if (this.#line !== before) {
        if (byte === 0x0d && this.#byte(this.#pos) === 0x0a) this.#step(0x0a);
        return this.#pos;
      }
    }
  }

  #step(byte: number): void {
    if (byte === 0x0d || (byte === 0x0a && !this.#afterCR)) this.#line++;
    this.#afterCR = byte === 0x0d;
    this.#pos++;
  }

  #byte(offset: number): number | undefined {
    while (this.#chunks.length > 0 && offset >= this.#base + this.#chunks[0]!.length) {
      this.#base += this.#chunks[0]!.length;
      this.#chunks.shift();
    }
    return this.#chunks[0]?.[offset - this.#base];
  }
}

async function* readCsv(path: string): AsyncGenerator<InputEvent> {
  const lines = new LineCounter();
  const bom = head(path).subarray(0, 3).equals(UTF8_BOM) ? 3 : 0;
  let end = 0;
  let header: InputEvent | undefined;
  let wrongLength = 0;
  const parser = parse({
    ...CSV_OPTIONS,
    bom: true,
    columns: (names: string[]) => {
      header = { kind: 'header', line: lines.recordLine(bom), columns: names.map((h) => h.trim()) };
      end = lines.skipLine();
      return names.map((h) => h.trim());
    },
    max_record_size: MAX_RECORD_BYTES,
    on_record: (record: Record<string, string>, context: { bytes: number; invalid_field_length: number }) => {
      // A record starts at the first byte that is not blank after the previous one ends.
      const line = lines.recordLine(end);
      end = context.bytes;
      // csv-parse counts records whose field count differs from the header's, cumulatively.
      if (context.invalid_field_length > wrongLength) {
        wrongLength = context.invalid_field_length;
        return { kind: 'problem', line, message: 'the number of fields differs from the header row' };
      }
      return { kind: 'record', line, offset: lines.position, fields: record };
    },
  });
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      lines.push(chunk);
      done(null, chunk);
    },
  });
  let failed: (Error & { code?: string }) | undefined;
  const feeding = pipeline(createReadStream(path), counting, parser).catch((error) => {
    failed ??= error;
  });
  try {
    for await (const event of parser as AsyncIterable<InputEvent>) {
      if (header) yield header;
      header = undefined;
      yield event;
    }
  } catch (error) {
    failed ??= error as Error & { code?: string };
  }
  await feeding;
  if (header) yield header;
  if (failed) yield await csvProblem(path, failed, end, lines.recordLine(end));
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** How svc reads CSV: blank lines skipped, fields trimmed, any line ending; rows may be short or long. */
const CSV_OPTIONS = {
  skip_empty_lines: true,
  relax_column_count: true,
  record_delimiter: ['\r\n', '\n', '\r'],
  trim: true,
};

/** The problem a csv-parse error describes, on the line where the broken record starts. */
async function csvProblem(
  path: string,
  error: Error & { code?: string },
  offset: number,
  line: number,
): Promise<InputEvent> {
  if (error.code === 'CSV_QUOTE_NOT_CLOSED' || error.code === 'CSV_MAX_RECORD_SIZE') {
    const opened = await unclosedQuoteLine(path, offset, line);
    if (opened !== undefined) {
      return {
        kind: 'problem',
        line: opened,
        message: 'not valid CSV: Quote Not Closed: the quoted field that starts on this line never ends',
      };
    }
    return {
      kind: 'problem',
      line,
      message: `not valid CSV: a record is longer than ${MAX_RECORD_BYTES} bytes`,
    };
  }
  return { kind: 'problem', line, message: `not valid CSV: ${error.message.replace(/ at line \d+/, '')}` };
}

/**
 * The line where a quoted field opens and never closes, scanning from a record's start to the end
 * of the file (csv-parse only reports the end of the file).
 */
async function unclosedQuoteLine(
  path: string,
  offset: number,
  startLine: number,
): Promise<number | undefined> {
  let line = startLine;
  let quoted = false;
  let openedAt = line;
  let fieldStart = true;
  let afterCR = false;
  let pendingQuote = false;
  for await (const chunk of createReadStream(path, { start: offset }) as AsyncIterable<Buffer>) {
    for (const c of chunk) {
      if (pendingQuote) {
        pendingQuote = false;
        // "" inside a quoted field is a quote; anything else closed the field.
        if (c === 0x22) continue;
        quoted = false;
      }
      const newline = c === 0x0d || (c === 0x0a && !afterCR);
      afterCR = c === 0x0d;
      if (quoted) {
        if (c === 0x22) pendingQuote = true;
        else if (newline) line++;
        continue;
      }
      if (c === 0x22 && fieldStart) {
        quoted = true;
        openedAt = line;
      } else if (newline) {
        line++;
        fieldStart = true;
      } else if (c === 0x2c) fieldStart = true;
      else if (c !== 0x20 && c !== 0x09 && c !== 0x0a) fieldStart = false;
    }
  }
  return quoted && !pendingQuote ? openedAt : undefined;
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
        const [record] = parseSync(bytes, { ...CSV_OPTIONS, bom: offset === 0, columns, to: 1 });
        if (record) return record as Record<string, unknown>;
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
