// Just past 300 lines: the one CSV reader (csv-parse streaming, every record's line counted from byte
// offsets, and what csv-parse calls an error said as a line of the file); the row rules are csv-rows.ts.
import { closeSync, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type CsvError, type InfoRecord, type Options, parse } from 'csv-parse';
import { type NotUtf8, Utf8Check } from '../api/utf8.js';
import { notUtf8Words } from '../system/input.js';
import { foldedRows, preamble, QUOTE_FIX, widthProblem } from './csv-rows.js';
import type { InputEvent } from './readers.js';

/**
 * The CSV reader of bulk files (see readers.ts): csv-parse, streaming, with the line each record
 * starts on counted here from byte offsets.
 */

/** The longest record (CSV) or line (NDJSON) read: anything longer is a broken file. */
export const MAX_RECORD_BYTES = 1 << 20;

export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** How svc reads CSV: blank lines skipped, fields trimmed, any line ending; rows may be short or long. */
export const CSV_OPTIONS = {
  skip_empty_lines: true,
  relax_column_count: true,
  record_delimiter: ['\r\n', '\n', '\r'],
  trim: true,
};

/** The first `bytes` of a file (to tell its format and whether it starts with a BOM; a journal's first line). */
export function head(path: string, bytes = 4096): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** The last `bytes` of the file at `path` (fewer if it is shorter). */
export function tail(path: string, bytes = 4096): Buffer {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(bytes, size));
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, size - buffer.length));
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
  /** A line being skipped (skipLine) whose end was not seen yet. */
  #skipping = false;

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  /** The offset reached: after recordLine(), where the record starts. */
  get position(): number {
    return this.#pos;
  }

  /** The line of the first byte at or after `offset` that is not blank (where a record starts). */
  recordLine(offset: number): number {
    this.#finishLine();
    for (;;) {
      const byte = this.#byte(this.#pos);
      if (byte === undefined) return this.#line;
      const blank = byte === 0x0a || byte === 0x0d || byte === 0x20 || byte === 0x09;
      if (this.#pos >= offset && !blank) return this.#line;
      this.#step(byte);
    }
  }

  /**
   * Moves past the end of the current line; returns the offset there. When the bytes seen so far
   * end before the line does, the rest of it is skipped by the next recordLine().
   */
  skipLine(): number {
    this.#skipping = true;
    this.#finishLine();
    return this.#pos;
  }

  #finishLine(): void {
    while (this.#skipping) {
      const byte = this.#byte(this.#pos);
      if (byte === undefined) return;
      const before = this.#line;
      this.#step(byte);
      if (this.#line !== before) {
        this.#skipping = false;
        if (byte === 0x0d && this.#byte(this.#pos) === 0x0a) this.#step(0x0a);
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

/** csv-parse errors of one record, after which it reads on at the next record (CSV_OPTIONS skip_records_with_error). */
const RESYNC = new Set(['INVALID_OPENING_QUOTE']);

/** `columnName` reads each (trimmed) name of the header row; the records' fields are named by it. */
export async function* readCsv(
  path: string,
  columnName: (column: string) => string = (column) => column,
): AsyncGenerator<InputEvent> {
  const lines = new LineCounter();
  // A record's line is that of its first byte that is not blank; a BOM is not one.
  let end = head(path).subarray(0, 3).equals(UTF8_BOM) ? 3 : 0;
  let columns: string[] | undefined;
  /** Whether the first line was read (a tool's preamble may come before the header). */
  let started = false;
  /** Problems of records csv-parse skipped (a stray quote), said before the next record. */
  let skipped: InputEvent[] = [];
  /** csv-parse's line of the last skipped record: it may report two errors of one record. */
  let skippedAt = -1;
  let stop: InputEvent | undefined;
  /**
   * An error csv-parse cannot read on after, with where the record it broke starts: later records
   * are not read (a thrown error would drop the records read before it, still buffered).
   */
  let broken: { error: CsvError; end: number; line: number } | undefined;
  const options: Options<InputEvent[], string[]> = {
    ...CSV_OPTIONS,
    bom: true,
    skip_records_with_error: true,
    max_record_size: MAX_RECORD_BYTES,
    on_skip: (error: CsvError | undefined): undefined => {
      if (error === undefined || broken) return undefined;
      if (!RESYNC.has(error.code)) {
        broken = { error, end, line: lines.recordLine(end) };
        return undefined;
      }
      if (error.lines === skippedAt) return undefined;
      skippedAt = typeof error.lines === 'number' ? error.lines : -1;
      const line = lines.recordLine(end);
      // csv-parse reads on after the line of the bad field (its start is the error's bytes).
      if (typeof error.bytes === 'number') lines.recordLine(error.bytes);
      end = lines.skipLine();
      const column = typeof error.column === 'number' ? columns?.[error.column] : undefined;
      const where = column === undefined || column === '' ? 'a' : `the ${column}`;
      skipped.push({
        kind: 'problem',
        line,
        message: `not valid CSV: a quote (") inside ${where} value: ${QUOTE_FIX}`,
      });
      return undefined;
    },
    on_record: (fields: string[], context: InfoRecord): InputEvent[] => {
      // A record starts at the first byte that is not blank after the previous one ends.
      const line = lines.recordLine(end);
      end = context.bytes;
      const events = skipped;
      skipped = [];
      if (stop || broken) return events;
      if (!started) {
        started = true;
        const before = preamble(fields);
        if (before && 'skip' in before) return events;
        if (before) {
          stop = { kind: 'problem', line, message: before.problem };
          return [...events, stop];
        }
      }
      if (columns === undefined) {
        // A spreadsheet's trailing empty column (`user,role,`) is no column.
        const names = fields.map((name) => columnName(name));
        while (names.length > 1 && names[names.length - 1] === '') names.pop();
        columns = names;
        return [...events, { kind: 'header', line, columns }];
      }
      // A row of separators only (`,,,`: a spreadsheet's empty rows) is a blank line.
      if (fields.every((field) => field === '')) return events;
      const wrong = widthProblem(fields, columns.length) ?? foldedRows(fields, columns, line);
      if (wrong) return [...events, { kind: 'problem', line, message: wrong }];
      const record: Record<string, string> = {};
      columns.forEach((name, i) => {
        record[name] = fields[i]!;
      });
      return [...events, { kind: 'record', line, offset: lines.position, fields: record }];
    },
  };
  const parser = parse(options as unknown as Options);
  // Bytes that are not UTF-8 would be read as U+FFFD, and that is what would be sent and stored:
  // the stream stops at the chunk that holds one.
  const utf8 = new Utf8Check();
  let notUtf8: NotUtf8 | undefined;
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      lines.push(chunk);
      notUtf8 = utf8.push(chunk);
      done(notUtf8 === undefined ? null : new Error('not UTF-8'), chunk);
    },
    flush(done) {
      notUtf8 = utf8.end();
      done(notUtf8 === undefined ? null : new Error('not UTF-8'));
    },
  });
  let failed: (Error & { code?: string }) | undefined;
  const feeding = pipeline(createReadStream(path), counting, parser).catch((error) => {
    failed ??= error;
  });
  try {
    for await (const events of parser as AsyncIterable<InputEvent[]>) yield* events;
  } catch (error) {
    failed ??= error as Error & { code?: string };
  }
  await feeding;
  yield* skipped;
  if (notUtf8 !== undefined)
    yield { kind: 'problem', line: lines.recordLine(notUtf8.offset), message: notUtf8Words(notUtf8) };
  else if (broken) yield await csvProblem(path, broken.error, broken.end, broken.line);
  else if (failed) yield await csvProblem(path, failed, end, lines.recordLine(end));
}

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
      message: `not valid CSV: a record is longer than ${MAX_RECORD_BYTES} bytes; the lines after it were not checked`,
    };
  }
  const what =
    error.code === 'CSV_INVALID_CLOSING_QUOTE'
      ? `a quoted value goes on after its closing quote: ${QUOTE_FIX}`
      : error.message.replace(/ at line \d+/, '');
  // csv-parse cannot tell where the next record starts: what follows is not read.
  return { kind: 'problem', line, message: `not valid CSV: ${what}; the lines after it were not checked` };
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
