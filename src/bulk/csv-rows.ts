import { counted } from '../output/format.js';

/**
 * The shapes of CSV rows that spreadsheets and people make (see csv.ts, which reads them): a
 * tool's first line before the header, a row's width against the header's, a quoted value that
 * swallowed rows, and the fix of a stray quote.
 */

/** The fix of a stray quote, the commonest mistake of a CSV typed by hand. */
export const QUOTE_FIX =
  'put the whole value in double quotes and double each quote in it ("He said ""hi""")';

/**
 * A first line a tool writes before the header: Excel's `sep=,` (honoured: it is svc's separator),
 * PowerShell's `#TYPE …` (Export-Csv without -NoTypeInformation; honoured), or the problem of
 * Excel's `sep=` naming another separator. Undefined for any other line.
 */
export function preamble(fields: string[]): { skip: true } | { problem: string } | undefined {
  const first = fields[0] ?? '';
  if (fields.length === 1 && /^#TYPE\b/i.test(first)) return { skip: true };
  if (!/^sep=/i.test(first)) return undefined;
  // `sep=,`, padded to the table's width (`sep=,,,`) or quoted (`"sep=,"`): commas, as svc reads (review20b F11).
  const rest = fields.slice(1);
  if (first.length === 4 && rest.length > 0 && rest.every((field) => field === '')) return { skip: true };
  if (fields.length === 1 && first === 'sep=,') return { skip: true };
  const given = first.slice(4);
  const separator = given === '\t' ? 'a tab' : given === '' ? 'no separator' : given;
  return {
    problem: `Excel's sep=${separator} line: svc reads comma-separated files; in Excel save as CSV UTF-8 (Comma delimited), or delete this line and separate the columns with commas`,
  };
}

/** A row's fields against the header's `width`: a problem when it has fewer, or more that are not empty. */
export function widthProblem(fields: string[], width: number): string | undefined {
  if (fields.length < width) {
    return `the row has ${counted(fields.length, 'field')} and the header row ${width}`;
  }
  const extra = fields.slice(width);
  if (extra.every((field) => field === '')) return undefined;
  const last = fields.slice(width - 1).join(', ');
  return `the row has ${fields.length} fields and the header row ${width}: a value that holds a comma must be in double quotes (${JSON.stringify(last)})`;
}

/**
 * A quoted value whose line breaks hold lines that read as rows of this file (as many fields as
 * the header): a quote opened and not closed where the value ends, closed by a stray quote lines
 * later, so the rows between are read as one value (attack20 F9). The narrowest rule that tells
 * it from a real line break in a value: a line of the value after its first with the header's
 * width or more whose user and role fields (by the header) are each one word (no space inside:
 * the ids of a row, `usr_…,tenant_auditor`). A value's line with fewer commas, or whose leading fields are prose
 * (`Scope: read, export, close`: review20b F5), is kept. `line` is the record's first line.
 */
/** A line of a value as a row of the file: the header's width at least, its id fields one word each. */
function readsAsRow(cells: string[], width: number, ids: number[]): boolean {
  return cells.length >= width && ids.every((at) => /^\S+$/.test((cells[at] ?? '').trim()));
}

/**
 * Where a row's ids are: the header's user and role columns (`user`, `role_id`, …), in whatever
 * order the file puts them (review20d D5: a file whose justification comes first); else the first two.
 */
function idColumns(columns: string[]): number[] {
  const at = columns.flatMap((name, i) => (/^(user|role)(_id|_name)?$/.test(name) ? [i] : []));
  return at.length > 0 ? at : [0, 1];
}

export function foldedRows(fields: string[], columns: string[], line: number): string | undefined {
  const ids = idColumns(columns);
  let breaks = 0;
  for (const [i, field] of fields.entries()) {
    const parts = field.split(/\r\n|\r|\n/);
    breaks += parts.length - 1;
    const rows = parts
      .slice(1)
      .map((part) => part.split(','))
      .filter((cells) => readsAsRow(cells, columns.length, ids));
    if (rows.length === 0) continue;
    const firsts = rows.slice(0, 3).map((cells) => cells[ids[0]!]!.trim());
    const more = rows.length > 3 ? ', …' : '';
    return `the quoted ${columns[i] ?? 'value'} runs from line ${line} to line ${line + breaks}, and ${rows.length} of its lines read as rows of this file (${firsts.join(', ')}${more}): is a closing quote missing? Close the quote where the value ends (a value may hold a line break only when no line of it reads as a row)`;
  }
  return undefined;
}
