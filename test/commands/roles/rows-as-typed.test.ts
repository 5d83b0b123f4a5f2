/**
 * Grant and revoke files as people type and paste them (s20 attack20 F9, F2, F14): a stray quote
 * that folds whole rows into one justification, an invisible character pasted into an id, and a
 * value nested deeper than svc sends. Each is refused in the file check, before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { assignArgv, assignments, bulkRunner, bulkUser, customRole, posts } from '../../helpers/bulk.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
const HEADER = 'user,role,expires_in,justification\n';
const ASSIGN_HINT =
  'error: 1 line of PATH has problems; nothing was sent; fix them and run the command again (columns: user, role, expires_in or expires_at, justification)';

async function refused(name: string, content: string, verb = 'assign') {
  const path = svc.file(name, content);
  const before = await posts(sandbox(), '/v1/users/:id/roles');
  const r = await svc.run(['roles', verb, '--file', path]);
  expect(await posts(sandbox(), '/v1/users/:id/roles')).toBe(before);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  return { path, lines: r.stderr.trimEnd().split('\n') };
}

describe('a quoted value that swallows rows (F9)', () => {
  it('two stray quotes lines apart: refused on the line the quote opens, naming the rows inside', async () => {
    const u = (n: number) => bulkUser(n);
    const { path, lines } = await refused(
      'folded.csv',
      `${HEADER}${u(1)},tenant_auditor,8h,"Q3 close\n${u(2)},tenant_auditor,8h,ok\n${u(3)},tenant_auditor,8h,ok\n${u(4)},tenant_auditor,8h,end"\n${u(5)},tenant_auditor,8h,last\n`,
    );
    expect(lines).toEqual([
      `${path}:2: the quoted justification runs from line 2 to line 5, and 3 of its lines read as rows of this file (${u(2)}, ${u(3)}, ${u(4)}): is a closing quote missing? Close the quote where the value ends (a value may hold a line break only when no line of it reads as a row)`,
      ASSIGN_HINT.replace('PATH', path),
    ]);
  });

  // review20d D5: judged by the first two cells, a file whose justification comes first swallowed rows again.
  it('the same with the justification column first: the ids are found by the header', async () => {
    const u = (n: number) => bulkUser(n);
    const { path, lines } = await refused(
      'folded-first.csv',
      `justification,user,role,expires_in\n"CHG-1 quarter close,${u(1)},tenant_auditor,8h\nCHG-2 approved by bob,${u(2)},tenant_auditor,8h\nnote",${u(3)},tenant_auditor,8h\n`,
    );
    expect(lines[0]).toBe(
      `${path}:2: the quoted justification runs from line 2 to line 4, and 1 of its lines read as rows of this file (${u(2)}): is a closing quote missing? Close the quote where the value ends (a value may hold a line break only when no line of it reads as a row)`,
    );
  });

  it('a line break inside a user or role is refused; one inside a justification is kept', async () => {
    const { path, lines } = await refused(
      'user-break.csv',
      `user,role\n"${bulkUser(1)}\n${bulkUser(2)}",tenant_auditor\n`,
      'revoke',
    );
    expect(lines[0]).toBe(
      `${path}:2: the user holds a line break (user, role and expiry are one line each): in a CSV file, is a closing quote missing?`,
    );
    // The same of a JSON row, said without claiming a quote is missing (review20b F8).
    const json = await refused(
      'user-break.ndjson',
      `{"user":"${bulkUser(1)}\\n${bulkUser(2)}","role":"tenant_auditor"}\n`,
      'revoke',
    );
    expect(json.lines[0]).toBe(
      `${json.path}:1: the user holds a line break (user, role and expiry are one line each): in a CSV file, is a closing quote missing?`,
    );
    const ok = svc.file(
      'note.csv',
      `${HEADER}${bulkUser(6)},tenant_auditor,8h,"Q3 close\nsecond line, with a comma"\n`,
    );
    const r = await svc.run(['roles', 'assign', '--file', ok, '--dry-run']);
    expect(r.code).toBe(0);
    // Prose lines as wide as a row are no rows (review20b F5): "Scope: read, export, close".
    const prose = svc.file(
      'prose.csv',
      `${HEADER}${bulkUser(6)},tenant_auditor,8h,"Q3 close\nScope: read, export, close, audit\nApprovers: Ann Lee, Bo Chu, Cy Day, Di Eng"\n`,
    );
    const both = await svc.run(['roles', 'assign', '--file', prose, '--dry-run']);
    expect([both.code, both.stderr]).toEqual([
      0,
      'dry run: 1 would be granted, 0 would be skipped, 0 would fail; nothing was changed\n',
    ]);
  });
});

describe('an invisible character pasted into an id (F2)', () => {
  it.each([
    ['\u200b', 'U+200B ZERO WIDTH SPACE', '\\u200b'],
    ['\u00ad', 'U+00AD SOFT HYPHEN', '\\u00ad'],
    ['\u200d', 'U+200D ZERO WIDTH JOINER', '\\u200d'],
    ['\u2060', 'U+2060 WORD JOINER', '\\u2060'],
    ['\ufeff', 'U+FEFF ZERO WIDTH NO-BREAK SPACE (a byte-order mark)', '\\ufeff'],
  ])('%j in a user id is refused, named and shown escaped', async (char, named, escaped) => {
    const id = `usr_${char}lead`;
    const { path, lines } = await refused('invisible.csv', `${HEADER}${id},tenant_auditor,8h,z\n`);
    expect(lines).toEqual([
      `${path}:2: user "usr_${escaped}lead" holds an invisible character (${named}) at 5: type the id again, or delete that character`,
      ASSIGN_HINT.replace('PATH', path),
    ]);
  });

  // review20d D2: typed on the command line, the id was sent and came back "not found", drawn clean.
  it.each([
    [
      ['roles', 'assignments', 'usr_\u200blead'],
      'USER "usr_\\u200blead" holds an invisible character (U+200B ZERO WIDTH SPACE) at 5',
    ],
    [
      ['roles', 'revoke', 'usr_lead', 'tenant_\u00adviewer', '--yes'],
      'ROLE "tenant_\\u00adviewer" holds an invisible character (U+00AD SOFT HYPHEN) at 8',
    ],
  ])('on the command line, %j is refused before any request', async (argv, said) => {
    const r = await svc.run(argv);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: ${said}: type the id again, or delete that character\n`,
    ]);
  });
});

// review20b F6: a role's name may hold a joiner — an emoji of several (👩‍💻 is 👩 U+200D 💻) or a
// Persian word's ZERO WIDTH NON-JOINER — and another server may allow one: it is looked up first,
// and only a role ref no role has is refused as a paste's leftover.
describe('a role name holding a joiner (review20b F6)', () => {
  const DEVS = '\u{1F469}\u200d\u{1F4BB}-devs';
  const PERSIAN = '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645';
  // The sandbox's names are [a-z0-9_-]; this server shows two of its roles by such names.
  const shown = (text: string) =>
    text.replaceAll('"f6-devs"', JSON.stringify(DEVS)).replaceAll('"f6-persian"', JSON.stringify(PERSIAN));
  const other = useLossyProxy(sandbox, {
    lose: () => false,
    reshape: (method, _path, status, text) =>
      method === 'GET' && status === 200
        ? { status, body: shown(text), headers: { 'content-type': 'application/json' } }
        : undefined,
  });
  const via = () => ({ env: { SVC_BASE_URL: other().url } });

  it('granted and revoked by file, and by the single verbs: the role the tenant has by that name', async () => {
    const devs = await customRole(sandbox(), 'f6-devs');
    const persian = await customRole(sandbox(), 'f6-persian');
    const rows = `${bulkUser(7)},${DEVS},8h,f6\n${bulkUser(7)},${PERSIAN},8h,f6\n`;
    const path = svc.file('joiners.csv', `${HEADER}${rows}`);
    const granted = await svc.run(['roles', 'assign', '--file', path, '--yes'], via());
    expect(granted.code, granted.stderr).toBe(0);
    expect([
      (await assignments(sandbox(), devs)).active,
      (await assignments(sandbox(), persian)).active,
    ]).toEqual([1, 1]);
    const revoked = await svc.run(['roles', 'revoke', '--file', path, '--yes'], via());
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await assignments(sandbox(), devs)).active).toBe(0);
    const one = await svc.run(assignArgv(bulkUser(8), DEVS), via());
    expect(one.code, one.stderr).toBe(0);
    const gone = await svc.run(['roles', 'revoke', bulkUser(8), DEVS, '--yes'], via());
    expect(gone.code, gone.stderr).toBe(0);
    expect((await assignments(sandbox(), devs)).active).toBe(0);
  });

  it('a role ref no role has, holding a zero width space, is still refused as a paste leftover', async () => {
    const { path, lines } = await refused(
      'zwsp-role.csv',
      `${HEADER}${bulkUser(1)},tenant_\u200bviewer,8h,z\n`,
    );
    expect(lines).toEqual([
      `${path}:2: role "tenant_\\u200bviewer" holds an invisible character (U+200B ZERO WIDTH SPACE) at 8: type the id again, or delete that character`,
      ASSIGN_HINT.replace('PATH', path),
    ]);
  });
});

describe('a value nested deeper than svc sends (F14)', () => {
  it('is a problem of its line, not a crash', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const { path, lines } = await refused(
      'deep.ndjson',
      `{"user":"${bulkUser(1)}","role":"tenant_viewer","expires_in":"8h","justification":${deep}}\n`,
    );
    expect(lines).toEqual([
      `${path}:1: the line nests 10001 levels deep; svc sends JSON at most 512 levels deep`,
      ASSIGN_HINT.replace('PATH', path),
    ]);
  });
});
