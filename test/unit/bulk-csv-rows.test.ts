/**
 * The row rules of bulk CSV files (src/bulk/csv-rows.ts), one by one: a tool's first line before
 * the header, a row's width against the header's, and a quoted value that swallowed rows. The
 * reader that applies them is tested through files in test/bulk/csv-as-made.test.ts and
 * test/commands/roles/rows-as-typed.test.ts; these pin each rule's edges and words.
 */
import { describe, expect, it } from 'vitest';
import { foldedRows, preamble, widthProblem } from '../../src/bulk/csv-rows.js';

const sepProblem = (separator: string) => ({
  problem: `Excel's sep=${separator} line: svc reads comma-separated files; in Excel save as CSV UTF-8 (Comma delimited), or delete this line and separate the columns with commas`,
});

describe('preamble: a first line before the header', () => {
  it("honours PowerShell's #TYPE line (any case), alone on its line", () => {
    expect(preamble(['#TYPE System.Management.Automation.PSCustomObject'])).toEqual({ skip: true });
    expect(preamble(['#type Selected.System.String'])).toEqual({ skip: true });
    // Not a #TYPE line: another word, or a line of several fields.
    expect(preamble(['#TYPES x'])).toBeUndefined();
    expect(preamble(['#TYPE x', 'role'])).toBeUndefined();
    expect(preamble(['note #TYPE x'])).toBeUndefined();
  });

  it("honours Excel's sep=, however written: alone, padded to the table's width, quoted", () => {
    expect(preamble(['sep=,'])).toEqual({ skip: true });
    // `sep=,,,` is read as `sep=` and empty fields.
    expect(preamble(['sep=', '', '', ''])).toEqual({ skip: true });
    expect(preamble(['sep='])).toEqual(sepProblem('no separator'));
    expect(preamble(['SEP=', ''])).toEqual({ skip: true });
  });

  it('refuses a sep= line naming another separator, or none, with the fix', () => {
    expect(preamble(['sep=;'])).toEqual(sepProblem(';'));
    expect(preamble(['sep=\t'])).toEqual(sepProblem('a tab'));
    expect(preamble(['sep=|', ''])).toEqual(sepProblem('|'));
    // `sep=` then a field that is not empty: not a padded sep=, line.
    expect(preamble(['sep=', 'x'])).toEqual(sepProblem('no separator'));
    expect(preamble(['sep=', 'x', ''])).toEqual(sepProblem('no separator'));
  });

  it('says nothing of a header row or an empty record', () => {
    expect(preamble(['user', 'role'])).toBeUndefined();
    expect(preamble(['separator', 'role'])).toBeUndefined();
    expect(preamble(['user sep=;'])).toBeUndefined();
    expect(preamble([])).toBeUndefined();
  });
});

describe("widthProblem: a row's fields against the header's", () => {
  it('takes a row as wide as the header, or wider by empty fields only', () => {
    expect(widthProblem(['u1', 'r'], 2)).toBeUndefined();
    expect(widthProblem(['u1', 'r', '', ''], 2)).toBeUndefined();
  });

  it('counts the fields of a short row', () => {
    expect(widthProblem(['u1'], 2)).toBe('the row has 1 field and the header row 2');
    expect(widthProblem(['u1', 'r'], 3)).toBe('the row has 2 fields and the header row 3');
  });

  it('shows the last field and those past it of a long row, joined as they were written', () => {
    expect(widthProblem(['u1', 'r', 'Q3 close', ' extra hands', ''], 3)).toBe(
      'the row has 5 fields and the header row 3: a value that holds a comma must be in double quotes ("Q3 close,  extra hands, ")',
    );
  });
});

describe('foldedRows: a quoted value whose lines read as rows of the file', () => {
  const columns = ['user', 'role', 'justification'];
  const tail = (from: number, to: number, rows: number, firsts: string) =>
    `the quoted justification runs from line ${from} to line ${to}, and ${rows} of its lines read as rows of this file (${firsts}): is a closing quote missing? Close the quote where the value ends (a value may hold a line break only when no line of it reads as a row)`;

  it('names the rows folded in, from the record’s first line to the value’s last', () => {
    expect(foldedRows(['u1', 'r', 'x\nu2,r,y\r\nu3 ,r,z'], columns, 5)).toBe(tail(5, 7, 2, 'u2, u3'));
  });

  it('names three of them, and says there are more', () => {
    const three = foldedRows(['u1', 'r', 'x\nu2,r,y\nu3,r,y\ru4,r,y'], columns, 2);
    expect(three).toBe(tail(2, 5, 3, 'u2, u3, u4'));
    const four = foldedRows(['u1', 'r', 'x\nu2,r,y\nu3,r,y\nu4,r,y\nu5,r,y'], columns, 2);
    expect(four).toBe(tail(2, 6, 4, 'u2, u3, u4, …'));
  });

  it('counts the line breaks of the values before the one that folded rows', () => {
    const four = ['user', 'role', 'note', 'justification'];
    expect(foldedRows(['u1', 'r', 'a\nb', 'x\nu2,r,y,z'], four, 3)).toBe(
      'the quoted justification runs from line 3 to line 5, and 1 of its lines read as rows of this file (u2): is a closing quote missing? Close the quote where the value ends (a value may hold a line break only when no line of it reads as a row)',
    );
  });

  it('keeps a line break in a value whose lines do not read as rows', () => {
    // Fewer commas than the header has columns.
    expect(foldedRows(['u1', 'r', 'first line\nu2,r'], columns, 2)).toBeUndefined();
    // Prose: the id fields hold spaces (review20b F5).
    expect(foldedRows(['u1', 'r', 'Scope:\nread all, export, close'], columns, 2)).toBeUndefined();
    expect(foldedRows(['u1', 'r', 'Scope:\nread, export all, close'], columns, 2)).toBeUndefined();
    // An empty id field is not one word.
    expect(foldedRows(['u1', 'r', 'Scope:\n,r,y'], columns, 2)).toBeUndefined();
    expect(foldedRows(['u1', 'r', 'no break'], columns, 2)).toBeUndefined();
    // A file of one column: a line of the value has no second id field.
    expect(foldedRows(['a\nb'], ['note'], 2)).toBeUndefined();
  });

  it("finds the ids by the header's user and role columns, wherever they are (review20d D5)", () => {
    const named = ['justification', 'user_id', 'role_name'];
    // The first field is prose: the line still reads as a row by its id columns.
    expect(foldedRows(['a\nlong text,u2,r', 'u1', 'r'], named, 4)).toBe(
      'the quoted justification runs from line 4 to line 5, and 1 of its lines read as rows of this file (u2): is a closing quote missing? Close the quote where the value ends (a value may hold a line break only when no line of it reads as a row)',
    );
    // Its id columns hold prose: no row.
    expect(foldedRows(['a\nu2,long text,r', 'u1', 'r'], named, 4)).toBeUndefined();
    // No user or role column: the first two are the ids.
    const other = ['who', 'what', 'why'];
    expect(foldedRows(['u1', 'r', 'x\nu2,r,long text'], other, 1)).toContain('(u2)');
    expect(foldedRows(['u1', 'r', 'x\nlong text,u2,r'], other, 1)).toBeUndefined();
    // A column only named like one is not an id column.
    expect(foldedRows(['u1', 'r', 'x\nu2,r,long text'], ['username', 'roles', 'why'], 1)).toContain('(u2)');
    expect(foldedRows(['u1', 'r', 'x\nu2,r,long text'], ['username', 'my_role', 'why'], 1)).toContain('(u2)');
    // A column whose name only starts like one (`user_note`) is not an id column: its prose does not hide the row.
    const noted = ['justification', 'user', 'role', 'user_note'];
    expect(foldedRows(['a\nlong text,u2,r,free text', 'u1', 'r', ''], noted, 1)).toContain('(u2)');
  });
});
