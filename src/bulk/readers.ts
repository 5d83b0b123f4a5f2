import { parse } from 'csv-parse/sync';

/** One record of an input file, with the line it starts on (1-based, as an editor shows it). */
export interface InputRecord {
  line: number;
  fields: Record<string, unknown>;
}

/** A problem with one line of an input file. */
export interface LineProblem {
  line: number;
  message: string;
}

export interface ParsedInput {
  format: 'csv' | 'ndjson';
  records: InputRecord[];
  problems: LineProblem[];
  /** CSV only: the header row's column names (trimmed) and the line it is on. */
  header?: { columns: string[]; line: number };
}

/** CSV when the name says so or the first non-blank character is not `{`; NDJSON otherwise. */
export function detectFormat(name: string, text: string): 'csv' | 'ndjson' {
  if (/\.csv$/i.test(name)) return 'csv';
  if (/\.(nd)?jsonl?$/i.test(name)) return 'ndjson';
  return text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('{')
    ? 'ndjson'
    : 'csv';
}

/**
 * Reads a whole CSV (header row; BOM, CRLF or LF, quoted fields, blank lines skipped) or NDJSON
 * file. Structural problems come back per line rather than as the first exception, so a caller
 * can report every bad line at once.
 */
export function readRecords(bytes: Buffer, name: string): ParsedInput {
  const text = bytes.toString('utf8');
  const format = detectFormat(name, text);
  return format === 'csv' ? readCsv(text, bytes) : readNdjson(text);
}

function readCsv(text: string, bytes: Buffer): ParsedInput {
  const records: InputRecord[] = [];
  const problems: LineProblem[] = [];
  let header: ParsedInput['header'];
  // A record starts at the first byte that is not a line break after the previous one ends
  // (context.bytes). csv-parse's own line count goes wrong after a quoted CRLF, so lines are
  // counted here. Records are taken as they are parsed (on_record), so csv-parse keeps no
  // array of its own: a 10,000-row file costs only the records themselves.
  const lineOf = lineIndex(bytes);
  let end = headerEnd(bytes);
  let wrongLength = 0;
  try {
    parse(text, {
      bom: true,
      columns: (names: string[]) => {
        const columns = names.map((h) => h.trim());
        header = { columns, line: firstContentLine(text) };
        return columns;
      },
      skip_empty_lines: true,
      relax_column_count: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      trim: true,
      on_record: (
        record: Record<string, string>,
        context: { bytes: number; invalid_field_length: number },
      ) => {
        const line = lineOf(skipBlank(bytes, end));
        end = context.bytes;
        // csv-parse counts records whose field count differs from the header's, cumulatively.
        if (context.invalid_field_length > wrongLength) {
          wrongLength = context.invalid_field_length;
          problems.push({ line, message: 'the number of fields differs from the header row' });
        } else {
          records.push({ line, fields: record });
        }
        return null;
      },
    });
  } catch (error) {
    records.length = 0;
    const e = error as { lines?: number; message: string; code?: string };
    const opened = e.code === 'CSV_QUOTE_NOT_CLOSED' ? unclosedQuoteLine(text) : undefined;
    if (opened !== undefined) {
      problems.push({
        line: opened,
        message: 'not valid CSV: Quote Not Closed: the quoted field that starts on this line never ends',
      });
    } else {
      problems.push({
        line: e.lines ?? 1,
        message: `not valid CSV: ${e.message.replace(/ at line \d+/, '')}`,
      });
    }
  }
  return { format: 'csv', records, problems, ...(header ? { header } : {}) };
}

/** Byte offset → 1-based line number (CRLF, LF and CR each end a line). */
function lineIndex(bytes: Buffer): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x0a || (b === 0x0d && bytes[i + 1] !== 0x0a)) starts.push(i + 1);
  }
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

function skipBlank(bytes: Buffer, offset: number): number {
  let i = offset;
  while (
    i < bytes.length &&
    (bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x20 || bytes[i] === 0x09)
  )
    i++;
  return i;
}

/** The offset just after the header row (the first line that is not blank). */
function headerEnd(bytes: Buffer): number {
  let i = skipBlank(bytes, bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);
  while (i < bytes.length && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i++;
  return bytes[i] === 0x0d && bytes[i + 1] === 0x0a ? i + 2 : i + 1;
}

/** The line where a quoted field opens and never closes (csv-parse only reports the end of the file). */
function unclosedQuoteLine(text: string): number | undefined {
  let line = 1;
  let quoted = false;
  let openedAt = 1;
  let fieldStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const newline = c === '\n' || (c === '\r' && text[i + 1] !== '\n');
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') i++;
        else quoted = false;
      } else if (newline) line++;
      continue;
    }
    if (c === '"' && fieldStart) {
      quoted = true;
      openedAt = line;
    } else if (newline) {
      line++;
      fieldStart = true;
    } else if (c === ',') fieldStart = true;
    else if (c !== ' ' && c !== '\t' && c !== '\r' && c !== '\uFEFF') fieldStart = false;
  }
  return quoted ? openedAt : undefined;
}

/** The 1-based number of the first line that is not blank (the header row of a CSV file). */
function firstContentLine(text: string): number {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const index = lines.findIndex((l) => l.trim() !== '');
  return index === -1 ? 1 : index + 1;
}

function readNdjson(text: string): ParsedInput {
  const records: InputRecord[] = [];
  const problems: LineProblem[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      problems.push({ line, message: `not valid JSON: ${(error as Error).message}` });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push({ line, message: 'each line must be a JSON object' });
      return;
    }
    records.push({ line, fields: value as Record<string, unknown> });
  });
  return { format: 'ndjson', records, problems };
}
