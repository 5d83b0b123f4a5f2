/**
 * Bulk CSV files as people and their tools make them (s20 attack20 F3, F8, F13, F15): Excel's
 * empty rows and trailing empty column, its `sep=` line, PowerShell's `#TYPE` line, a stray quote
 * (every line after it is still checked), a value with an unquoted comma, JSON named .csv, CSV
 * named .json, and a workbook given as a CSV file.
 */
import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../../src/bulk/readers.js';
import { inputReader, problems, records } from '../helpers/input-events.js';
import { useTempDir } from '../helpers/temp.js';

const dir = useTempDir('svc-csv-made-');
const read = inputReader(dir);
const header = (events: InputEvent[]) => events.find((e) => e.kind === 'header');

describe('CSV as spreadsheets write it (F3)', () => {
  it("skips Excel's empty rows (only separators) and ignores a trailing empty column", async () => {
    const events = await read(
      'xl.csv',
      '\uFEFFuser,role,expires_in,justification,\r\nu1,r,8h,x,\r\n,,,,\r\n,,,\r\n,\r\n',
    );
    expect(header(events)).toEqual({
      kind: 'header',
      line: 1,
      columns: ['user', 'role', 'expires_in', 'justification'],
    });
    expect(records(events)).toEqual([[2, { user: 'u1', role: 'r', expires_in: '8h', justification: 'x' }]]);
    expect(problems(events)).toEqual([]);
  });

  it('honours sep=, and #TYPE first lines, and refuses sep=; with the fix', async () => {
    const sep = await read('sep.csv', 'sep=,\r\nuser,role\r\nu1,r\r\n');
    expect(header(sep)).toEqual({ kind: 'header', line: 2, columns: ['user', 'role'] });
    expect(records(sep)).toEqual([[3, { user: 'u1', role: 'r' }]]);
    // Padded to the table's width, or quoted: commas still (review20b F11).
    for (const first of ['sep=,,,', '"sep=,"']) {
      const padded = await read('sep-padded.csv', `${first}\r\nuser,role,expires_in\r\nu1,r,8h\r\n`);
      expect([problems(padded), records(padded)]).toEqual([
        [],
        [[3, { user: 'u1', role: 'r', expires_in: '8h' }]],
      ]);
    }
    const ps = await read(
      'ps.csv',
      '#TYPE System.Management.Automation.PSCustomObject\r\n"user","role"\r\n"u1","r"\r\n',
    );
    expect(header(ps)).toEqual({ kind: 'header', line: 2, columns: ['user', 'role'] });
    expect(records(ps)).toEqual([[3, { user: 'u1', role: 'r' }]]);
    expect(problems(ps)).toEqual([]);
    const semi = await read('semi.csv', 'sep=;\r\nuser;role\r\nu1;r\r\n');
    expect(problems(semi)).toEqual([
      [
        1,
        "Excel's sep=; line: svc reads comma-separated files; in Excel save as CSV UTF-8 (Comma delimited), or delete this line and separate the columns with commas",
      ],
    ]);
    expect(records(semi)).toEqual([]);
  });

  it('says how many fields a row has against the header, and to quote a value with a comma', async () => {
    const events = await read('n.csv', 'user,role,justification\nu1,r,Q3 close, extra hands\nu2\nu3,r,ok\n');
    expect(problems(events)).toEqual([
      [
        2,
        'the row has 4 fields and the header row 3: a value that holds a comma must be in double quotes ("Q3 close, extra hands")',
      ],
      [3, 'the row has 1 field and the header row 3'],
    ]);
    expect(records(events)).toEqual([[4, { user: 'u3', role: 'r', justification: 'ok' }]]);
  });
});

describe('CSV: a stray quote (F8)', () => {
  it('is reported on its line with the fix, and every line after it is still read (or said not to be)', async () => {
    const events = await read(
      'q.csv',
      'user,role,expires_in,justification\nu1,r,8h,He said "hi"\nu2,nope,8h,ok\nu3,r,8h,She said "yo"\r\n\r\nu4,r,1w,ok\n"u5",r,8h,"a "b" c"\nu6,r,8h,"two\nlines"\n',
    );
    const quote = (column: string) =>
      `not valid CSV: a quote (") inside the ${column} value: put the whole value in double quotes and double each quote in it ("He said ""hi""")`;
    expect(problems(events)).toEqual([
      [2, quote('justification')],
      [4, quote('justification')],
      // A quote closing a value too soon: where the next record starts cannot be told.
      [
        7,
        'not valid CSV: a quoted value goes on after its closing quote: put the whole value in double quotes and double each quote in it ("He said ""hi"""); the lines after it were not checked',
      ],
    ]);
    expect(records(events).map(([line, f]) => [line, (f as { user: string }).user])).toEqual([
      [3, 'u2'],
      [6, 'u4'],
    ]);
  });
});

describe('the format is chosen by the name (F13) and a workbook is named (F15)', () => {
  it('JSON in a .csv and CSV in a .json: one problem that says so, with the fix', async () => {
    const nd = await read('nd.csv', '\uFEFF{"user":"u1","role":"r"}\n{"user":"u2","role":"r"}\n');
    expect(problems(nd)).toEqual([
      [
        1,
        'the file is named .csv but holds JSON (it starts with {): svc reads the format the name says; rename it .ndjson (one object per line) or .json, or write CSV',
      ],
    ]);
    const csv = await read('c.json', '"user","role"\r\n"u1","r"\r\n');
    expect(problems(csv)).toEqual([
      [
        1,
        'the file is named .json but does not start with { or [ (CSV?): svc reads the format the name says; rename it .csv if it is CSV',
      ],
    ]);
  });

  it('an Excel workbook (.xlsx zip or old .xls) is one problem: save it as CSV', async () => {
    const words =
      'is a spreadsheet workbook, not CSV: in Excel, File › Save As › CSV UTF-8 (Comma delimited) (*.csv), and give that file (LibreOffice: Save As › Text CSV, UTF-8, comma)';
    const zip = await read('grants.xlsx', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0xb8, 0x08]));
    expect(problems(zip)).toEqual([[1, `the file ${words}`]]);
    const ole = await read('old.csv', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0xff]));
    expect(problems(ole)).toEqual([[1, `the file ${words}`]]);
  });
});

describe('NDJSON files joined with cat (F2)', () => {
  it('a byte-order mark that starts a later line is named, not shown as an invisible token', async () => {
    const events = await read('joined.ndjson', '\uFEFF{"user":"u1"}\n\uFEFF{"user":"u2"}\n');
    expect(records(events)).toEqual([[1, { user: 'u1' }]]);
    expect(problems(events)).toEqual([
      [
        2,
        "it starts with a byte-order mark (U+FEFF): files joined with cat? remove it: sed '2,$s/^\\xEF\\xBB\\xBF//'",
      ],
    ]);
  });
});
