import { describe, expect, it } from 'vitest';
import { readInput } from '../../../src/bulk/readers.js';
import { bulkRunner, bulkUser, held, posts } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useSandbox } from '../../helpers/sandbox.js';

// A JSON array of grants (`jq .` output, an HR export) got one raw JSON.parse error per physical
// line (exploratory test s12, scale12 M2). It is read as rows, element by element (streaming),
// each checked as an NDJSON line is, on the line where it starts.
const sandbox = useSandbox({ users: 20 });
const svc = bulkRunner(sandbox);
const grantOf = (n: number, extra: Record<string, unknown> = {}) => ({
  user: bulkUser(n),
  role: 'tenant_viewer',
  expires_in: '7d',
  justification: 'j',
  ...extra,
});
const COLUMNS = '(columns: user, role, expires_in or expires_at, justification)';
/** What an unknown field adds to the hint: how to keep the fields svc reads. */
const KEEP =
  "; keep only those: jq -c '{user: (.user // .user_id), role: (.role // .role_id), expires_in, expires_at, justification}'";
/** One object on two lines, as an editor wraps it: `{"user":…,"role":…,` then ` "expires_in":…}`. */
const wrapped = (value: object) => {
  const text = JSON.stringify(value);
  const cut = text.indexOf(',"expires_in"') + 1;
  return `${text.slice(0, cut)}\n ${text.slice(cut)}`;
};
/** What JSON.parse says of a text (the reader quotes it after "not valid JSON: "). */
const parseError = (text: string) => {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} parses`);
};

describe('svc roles assign/revoke --file with a JSON array', () => {
  it('a pretty-printed array: planned and granted row by row, on the lines the elements start on; revoked the same way', async () => {
    const path = svc.file('grants.json', `${JSON.stringify([grantOf(1), grantOf(2)], null, 2)}\n`);
    const dry = await svc.run([
      'roles',
      'assign',
      '--file',
      path,
      '--dry-run',
      '--ndjson',
      '--concurrency',
      '1',
    ]);
    expect([dry.code, ndjson(dry.stdout).map((r) => [r.line, r.plan, r.user])]).toEqual([
      0,
      [
        [2, 'grant', bulkUser(1)],
        [8, 'grant', bulkUser(2)],
      ],
    ]);
    const real = await svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1']);
    expect([real.code, ndjson(real.stdout).map((r) => [r.line, r.status])]).toEqual([
      0,
      [
        [2, 'ok'],
        [8, 'ok'],
      ],
    ]);
    expect((await held(sandbox(), bulkUser(2))).map((a) => a.role_id)).toContain('tenant_viewer');
    const undo = await svc.run([
      'roles',
      'revoke',
      '--file',
      path,
      '--yes',
      '--ndjson',
      '--concurrency',
      '1',
    ]);
    expect([undo.code, ndjson(undo.stdout).map((r) => [r.line, r.status])]).toEqual([
      0,
      [
        [2, 'ok'],
        [8, 'ok'],
      ],
    ]);
  });

  it('one element per line with commas (any name, a BOM, CRLF): read as rows', async () => {
    const text = `\uFEFF[\r\n${JSON.stringify(grantOf(3))},\r\n${JSON.stringify(grantOf(4))}\r\n]\r\n`;
    const path = svc.file('export.txt', text);
    const r = await svc.run([
      'roles',
      'assign',
      '--file',
      path,
      '--dry-run',
      '--ndjson',
      '--concurrency',
      '1',
    ]);
    expect([r.code, ndjson(r.stdout).map((row) => [row.line, row.plan])]).toEqual([
      0,
      [
        [2, 'grant'],
        [3, 'grant'],
      ],
    ]);
  });

  it.each([
    [
      'an element without a justification, and a duplicate',
      `${JSON.stringify([grantOf(5), grantOf(6, { justification: undefined }), grantOf(5)], null, 2)}\n`,
      ['8: missing justification', '13: duplicate of line 2: usr_bulk_000005 and tenant_viewer again'],
    ],
    [
      'an element that is not an object',
      `[\n  ${JSON.stringify(grantOf(7))},\n  "x"\n]\n`,
      ['3: each element of the array must be a JSON object'],
    ],
    [
      'two elements on one line (jq -c .)',
      `${JSON.stringify([grantOf(8), grantOf(9)])}\n`,
      [
        "1: a second element of the JSON array starts on line 1; put each element on lines of its own (jq . FILE > NEW), or write NDJSON (jq -c '.[]' FILE > NEW)",
      ],
    ],
    [
      'an array not closed',
      `[\n  ${JSON.stringify(grantOf(10))},\n`,
      ['3: the JSON array is not closed: ] is missing at the end'],
    ],
    [
      'a comma after the last element',
      `[\n  ${JSON.stringify(grantOf(11))},\n]\n`,
      ['3: a comma after the last element of the array; remove it'],
    ],
    [
      // Exploratory test s12, review-e L3: the inner array's `]` was taken for the outer one's.
      'a nested array, pretty-printed',
      `${JSON.stringify([[grantOf(13), grantOf(14)]], null, 2)}\n`,
      ['2: each element of the array must be a JSON object'],
    ],
    [
      'a nested array on one line',
      `${JSON.stringify([[grantOf(13)]])}\n`,
      ['1: each element of the array must be a JSON object'],
    ],
    [
      'a nested array, then a good element',
      `[\n  [1, 2],\n  ${JSON.stringify(grantOf(15, { department: 'x' }))}\n]\n`,
      ['2: each element of the array must be a JSON object', '3: unknown field "department"'],
    ],
    [
      // Exploratory test s12, review-e M2: one raw JSON.parse error per physical line.
      'one object over several lines (jq .)',
      `${JSON.stringify(grantOf(16), null, 2)}\n`,
      [
        '1: one JSON object spread over several lines; --file takes NDJSON (one object per line), a JSON array or CSV: jq -c . FILE > NEW',
      ],
    ],
    [
      'an NDJSON line, then an object over several lines',
      `${JSON.stringify(grantOf(17))}\n\n${JSON.stringify(grantOf(18), null, 2)}\n`,
      [
        '3: one JSON object spread over several lines; --file takes NDJSON (one object per line), a JSON array or CSV: jq -c . FILE > NEW',
      ],
    ],
    [
      // Exploratory test s12, docs12 5: an editor's wrap keeps the first key on the `{` line.
      'one object wrapped by hand (the first key on the `{` line)',
      `${wrapped(grantOf(19))}\n`,
      [
        '1: one JSON object spread over several lines; --file takes NDJSON (one object per line), a JSON array or CSV: jq -c . FILE > NEW',
      ],
    ],
    [
      'an NDJSON line, then an object wrapped by hand over three lines',
      `${JSON.stringify(grantOf(20))}\n${wrapped(grantOf(21)).replace('"expires_in"', '\n "expires_in"')}\n`,
      [
        '2: one JSON object spread over several lines; --file takes NDJSON (one object per line), a JSON array or CSV: jq -c . FILE > NEW',
      ],
    ],
    [
      'an NDJSON line cut short, then a whole one: the cut line is its own problem',
      `${JSON.stringify(grantOf(22)).slice(0, 30)}\n${JSON.stringify(grantOf(23))}\n`,
      [`1: not valid JSON: ${parseError(JSON.stringify(grantOf(22)).slice(0, 30))}`],
    ],
    [
      'an unknown field',
      `[\n  ${JSON.stringify(grantOf(12, { department: 'ops' }))}\n]\n`,
      ['2: unknown field "department"'],
    ],
  ])('%s: one line each, exit 2, nothing sent', async (_what, text, problems) => {
    const path = svc.file('bad.json', text);
    const before = await posts(sandbox(), '/v1/users/:id/roles');
    const r = await svc.run(['roles', 'assign', '--file', path]);
    const lines = problems.length === 1 ? '1 line' : `${problems.length} lines`;
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `${problems.map((p) => `${path}:${p}\n`).join('')}error: ${lines} of ${path} ${problems.length === 1 ? 'has' : 'have'} problems; nothing was sent; fix them and run the command again ${COLUMNS}${problems.some((p) => p.includes('unknown field')) ? KEEP : ''}\n`,
    ]);
    expect(await posts(sandbox(), '/v1/users/:id/roles')).toBe(before);
  });

  it('an element split across read chunks, with strings holding brackets, quotes and commas, is read whole', async () => {
    const rows = Array.from({ length: 300 }, (_, n) =>
      grantOf(n, { justification: `a "[{,}]" \\ ${'é'.repeat(n % 50)}` }),
    );
    const path = svc.file('many.json', JSON.stringify(rows, null, 4));
    const events = [];
    for await (const event of readInput(path, 'many.json')) events.push(event);
    expect(events.filter((e) => e.kind === 'problem')).toEqual([]);
    const records = events.filter((e) => e.kind === 'record');
    expect(records.map((e) => (e as { fields: unknown }).fields)).toEqual(rows);
    expect(records.map((e) => e.line)).toEqual(rows.map((_, n) => 2 + 6 * n));
  });
});
