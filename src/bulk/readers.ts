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
  return format === 'csv' ? readCsv(text) : readNdjson(text);
}

function readCsv(text: string): ParsedInput {
  const records: InputRecord[] = [];
  const problems: LineProblem[] = [];
  let rows: Array<{
    record: Record<string, string>;
    info: { lines: number; invalid_field_length: number };
    raw: string;
  }>;
  try {
    rows = parse(text, {
      bom: true,
      columns: (header: string[]) => header.map((h) => h.trim()),
      skip_empty_lines: true,
      relax_column_count: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      trim: true,
      info: true,
      raw: true,
    });
  } catch (error) {
    const e = error as { lines?: number; message: string };
    problems.push({ line: e.lines ?? 1, message: `not valid CSV: ${e.message.replace(/ at line \d+/, '')}` });
    return { format: 'csv', records, problems };
  }
  let wrongLength = 0;
  for (const { record, info, raw } of rows) {
    // info.lines is the line a record ends on; subtract the line breaks inside it (quoted fields).
    const inner = raw.replace(/^[\r\n]+|[\r\n]+$/g, '');
    const line = info.lines - (inner.match(/\r\n|\n|\r/g)?.length ?? 0);
    // csv-parse counts records whose field count differs from the header's, cumulatively.
    if (info.invalid_field_length > wrongLength) {
      wrongLength = info.invalid_field_length;
      problems.push({ line, message: 'the number of fields differs from the header row' });
      continue;
    }
    records.push({ line, fields: record });
  }
  return { format: 'csv', records, problems };
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
