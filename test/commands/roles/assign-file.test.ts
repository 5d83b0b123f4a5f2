// Over 300 lines: bulk grants from a file, one behaviour per test against one sandbox with exact
// output per mode.
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import {
  afterResuming,
  assignments,
  bulkRunner,
  bulkUser,
  customRole,
  fixedClock,
  held,
  posts,
} from '../../helpers/bulk.js';
import { ndjson, virtualClock } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { ACME, call, useSandbox } from '../../helpers/sandbox.js';
import { gate } from '../../helpers/targets.js';

const sandbox = useSandbox({ users: 2000 });
const svc = bulkRunner(sandbox);
/** The Ctrl-C case's grants: the first 10 pass, the others wait at the proxy for `until`. */
const hold: { passed: number; waiting: number; until: Promise<void> } = {
  passed: 0,
  waiting: 0,
  until: Promise.resolve(),
};
const holding = useLossyProxy(sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (method !== 'POST' || !/^\/v1\/users\/[^/]+\/roles$/.test(path)) return;
    if (hold.passed < 10) {
      hold.passed++;
      return;
    }
    hold.waiting++;
    await hold.until;
    hold.waiting--;
  },
});
const HEADER = 'user,role,expires_in,justification\n';
const H = 3_600_000;
let roles = 0;
/** A fresh role and a file granting it to users `from`… (one row each). */
async function grantsFile(rows: Array<[user: string, expires: string, why: string]>) {
  const name = `bulk-${++roles}`;
  const id = await customRole(sandbox(), name);
  const body = rows.map(([user, expires, why]) => `${user},${name},${expires},${why}`).join('\n');
  return { name, id, path: svc.file(`${name}.csv`, `${HEADER}${body}\n`) };
}

describe('svc roles assign --file: output in every mode', () => {
  it.each(['table', 'plain', 'json', 'ndjson'] as const)(
    '%s: one result per row, then the summary',
    async (mode) => {
      const clock = fixedClock();
      const { name, id, path } = await grantsFile([
        [bulkUser(1), '8h', 'a'],
        [bulkUser(2), 'never', 'b'],
      ]);
      const flags = mode === 'json' || mode === 'ndjson' ? [`--${mode}`] : [];
      const r = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '1', ...flags], {
        clock,
        mode: mode === 'table' ? 'table' : 'plain',
      });
      expect(r.stderr).toBe('✓ 2 granted in Acme Treasury (acme-treasury) (0.0 s)\n');
      expect(r.code).toBe(0);
      const audit = await Promise.all(
        [1, 2].map(
          async (n) => (await held(sandbox(), bulkUser(n))).find((a) => a.role_id === id)!.audit_trail_id,
        ),
      );
      const until = isoSeconds(clock.ms + 8 * H);
      const objects = [
        {
          line: 2,
          status: 'ok',
          user: bulkUser(1),
          role: name,
          role_id: id,
          tenant_id: ACME,
          expires_at: until,
          audit_trail_id: audit[0],
        },
        {
          line: 3,
          status: 'ok',
          user: bulkUser(2),
          role: name,
          role_id: id,
          tenant_id: ACME,
          expires_at: null,
          audit_trail_id: audit[1],
        },
      ];
      const expected = {
        table:
          // On a terminal the expiry is a time as elsewhere, relative and whole (attack22b F3).
          `LINE  STATUS  USER             ROLE    EXPIRES     AUDIT TRAIL ID                DETAIL\n` +
          `2     ok      ${bulkUser(1)}  ${name}  in 8 hours  ${audit[0]}  -\n` +
          `3     ok      ${bulkUser(2)}  ${name}  never       ${audit[1]}  -\n`,
        plain: `2\tok\t${bulkUser(1)}\t${name}\t${until}\t${audit[0]}\t\n3\tok\t${bulkUser(2)}\t${name}\tnever\t${audit[1]}\t\n`,
        json: `[\n${objects.map((o) => JSON.stringify(o)).join(',\n')}\n]\n`,
        ndjson: objects.map((o) => `${JSON.stringify(o)}\n`).join(''),
      }[mode];
      expect(r.stdout).toBe(expected);
      // The journal of a finished run is removed.
      expect(readdirSync(svc.journals)).toEqual([]);
    },
  );
});

describe('svc roles assign --file: the file is checked first', () => {
  const user = bulkUser(10);
  it.each([
    [
      'a duplicate row',
      `${HEADER}${user},tenant_viewer,8h,a\n${bulkUser(11)},tenant_viewer,8h,b\n${user},tenant_viewer,1h,c\n`,
      [`4: duplicate of line 2: ${user} and tenant_viewer again`],
    ],
    [
      'an unknown role',
      `${HEADER}${user},tenant_veiwer,8h,a\n`,
      ['2: unknown role "tenant_veiwer" (did you mean tenant_viewer?)'],
    ],
    [
      'a bad duration',
      `${HEADER}${user},tenant_viewer,8 hours,a\n${bulkUser(11)},tenant_viewer,0m,a\n`,
      [
        '2: expires_in "8 hours" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never',
        '3: expires_in a duration must be longer than zero, got "0m"',
      ],
    ],
    [
      'an expiry in the past',
      `user,role,expires_at,justification\n${user},tenant_viewer,2020-01-01T00:00:00Z,a\n`,
      ['2: expires_at 2020-01-01T00:00:00Z is in the past'],
    ],
    [
      'both expiry columns',
      `user,role,expires_in,expires_at,justification\n${user},tenant_viewer,8h,2030-01-01T00:00:00Z,a\n`,
      ['2: give expires_in or expires_at, not both'],
    ],
    [
      'a missing value',
      `${HEADER}${user},tenant_viewer,,a\n,tenant_viewer,8h,a\n${bulkUser(12)},tenant_viewer,8h,\n`,
      [
        '2: missing expiry: set expires_in (30m, 8h, 7d or never) or expires_at',
        '3: missing user',
        '4: missing justification',
      ],
    ],
    [
      'an id that is a path segment',
      `${HEADER}.,tenant_viewer,8h,a\n..,tenant_viewer,8h,a\n`,
      ['2: user "." is not a user id', '3: user ".." is not a user id'],
    ],
    [
      'an organisation role',
      `${HEADER}${user},org_admin,8h,a\n`,
      ['2: org_admin is an organisation role; it cannot be granted in a tenant'],
    ],
    [
      'a row with an extra field',
      `${HEADER}${user},tenant_viewer,8h,a,b\n`,
      [
        '2: the row has 5 fields and the header row 4: a value that holds a comma must be in double quotes ("a, b")',
      ],
    ],
    [
      'an unclosed quote',
      `${HEADER}${user},tenant_viewer,8h,a\n${bulkUser(11)},tenant_viewer,8h,"b\n${bulkUser(12)},tenant_viewer,8h,c\n`,
      ['3: not valid CSV: Quote Not Closed: the quoted field that starts on this line never ends'],
    ],
    [
      'an unknown and a missing column',
      `usr,role,expires_in,justification\n${user},tenant_viewer,8h,a\n`,
      ['1: unknown column "usr" (did you mean user?)', '1: missing column "user"'],
    ],
    [
      'no expiry or justification column',
      `user,role\n${user},tenant_viewer\n`,
      [
        '1: no expires_in or expires_at column: add one, or pass --expires-in or --expires-at for every row',
        '1: no justification column: add one, or pass --justification for every row',
      ],
    ],
    [
      'no header row: one problem, not one per column',
      `${user},tenant_viewer,8h,a\n${bulkUser(11)},tenant_viewer,8h,b\n`,
      [
        '1: line 1 looks like data, not a header (expected columns: user, role, expires_in or expires_at, justification)',
      ],
    ],
    ['only a header', HEADER, ['1: the file has a header row but no rows']],
    // attack18a F7: a header alone that lacks columns is said to have no rows in the first run,
    // not first sent to add columns (or flags) for rows it does not have.
    [
      'only a header, lacking columns',
      'user,role\n',
      [
        '1: the file has a header row but no rows',
        '1: no expires_in or expires_at column: add one, or pass --expires-in or --expires-at for every row',
        '1: no justification column: add one, or pass --justification for every row',
      ],
    ],
    ['an empty file', '', ['1: the file is empty']],
  ])('reports %s with its line and sends nothing (exit 2)', async (_what, content, problems) => {
    const path = svc.file('bad.csv', content);
    const before = await posts(sandbox(), '/v1/users/:id/roles');
    const r = await svc.run(['roles', 'assign', '--file', path]);
    const lines = new Set(problems.map((p) => p.split(':')[0])).size;
    const have = `${lines} ${lines === 1 ? 'line' : 'lines'} of ${path} ${lines === 1 ? 'has' : 'have'}`;
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `${problems.map((p) => `${path}:${p}\n`).join('')}error: ${have} problems; nothing was sent; fix them and run the command again (columns: user, role, expires_in or expires_at, justification)\n`,
    ]);
    expect(await posts(sandbox(), '/v1/users/:id/roles')).toBe(before);
  });

  it('reads a CSV with a BOM, CRLF, quoted fields and blank lines; quotes and line breaks reach the audit trail', async () => {
    const id = await customRole(sandbox(), 'edge-csv');
    const path = svc.file(
      'edge.csv',
      '\uFEFFuser,role,expires_in,justification\r\n' +
        `${bulkUser(60)},edge-csv,8h,"onboarding, wave 1"\r\n\r\n` +
        `"${bulkUser(61)}",edge-csv,7d,"says ""hi"""\r\n` +
        `${bulkUser(62)},edge-csv,never,"two\r\nlines"\r\n`,
    );
    const r = await svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1']);
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/^✓ 3 granted in/)]);
    expect(ndjson(r.stdout).map((x) => [x.line, x.user])).toEqual([
      [2, bulkUser(60)],
      [4, bulkUser(61)],
      [5, bulkUser(62)],
    ]);
    const justification = async (n: number) =>
      (
        await call(sandbox(), 'GET', `/v1/users/${bulkUser(n)}/roles`, {
          token: sandbox().adminToken,
          tenant: svc.env().SVC_TENANT,
        })
      ).body.items.find((a: { role_id: string }) => a.role_id === id).justification;
    expect(await Promise.all([60, 61, 62].map(justification))).toEqual([
      'onboarding, wave 1',
      'says "hi"',
      'two\r\nlines',
    ]);
  });

  it('reads NDJSON from standard input; flags fill in what rows leave out', async () => {
    const clock = fixedClock();
    const id = await customRole(sandbox(), 'from-stdin');
    const stdin = `${JSON.stringify({ user: bulkUser(20), role: 'from-stdin' })}\n${JSON.stringify({ user: bulkUser(21), role: id, expires_at: '2099-01-01T00:00:00Z', justification: 'own' })}\n`;
    const argv = [
      'roles',
      'assign',
      '--file',
      '-',
      '--expires-in',
      '7d',
      '--justification',
      'audit',
      '--ndjson',
    ];
    const r = await svc.run([...argv, '--concurrency', '1'], { clock, stdin });
    expect([r.code, r.stderr]).toEqual([0, '✓ 2 granted in Acme Treasury (acme-treasury) (0.0 s)\n']);
    expect(ndjson(r.stdout).map((x) => [x.line, x.status, x.user, x.expires_at])).toEqual([
      [1, 'ok', bulkUser(20), isoSeconds(clock.ms + 7 * 24 * H)],
      [2, 'ok', bulkUser(21), '2099-01-01T00:00:00Z'],
    ]);
    const bad = await svc.run(['roles', 'assign', '--file', '-'], { stdin: '{"user":"u","rol":"x"}\n[1]\n' });
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'stdin:1: unknown field "rol" (did you mean role?)\n' +
        'stdin:1: missing role\n' +
        'stdin:1: missing expiry: set expires_in (30m, 8h, 7d or never) or expires_at\n' +
        'stdin:1: missing justification\n' +
        'stdin:2: each line must be a JSON object\n' +
        'error: 2 lines of stdin have problems; nothing was sent; fix them and run the command again (columns: user, role, expires_in or expires_at, justification)' +
        "; keep only those: jq -c '{user: (.user // .user_id), role: (.role // .role_id), expires_in, expires_at, justification}'\n",
    ]);
  });
});

describe('svc roles assign --file: an invalid file for machines', () => {
  it.each(['json', 'ndjson'] as const)(
    '--%s: stderr is the one error object, every problem in its details, nothing sent',
    async (mode) => {
      const before = await posts(sandbox(), '/v1/users/:id/roles');
      const r = await svc.run(['roles', 'assign', '--file', '-', `--${mode}`], {
        stdin: '{"user":"u","rol":"x"}\n[1]\n',
      });
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      const problem = (line: number, message: string) => ({ file: 'stdin', line, message });
      expect(JSON.parse(r.stderr).error).toEqual({
        code: 'invalid_file',
        exit_code: 2,
        message: '2 lines of stdin have problems; nothing was sent',
        hint:
          'fix them and run the command again (columns: user, role, expires_in or expires_at, justification)' +
          "; keep only those: jq -c '{user: (.user // .user_id), role: (.role // .role_id), expires_in, expires_at, justification}'",
        details: [
          problem(1, 'unknown field "rol" (did you mean role?)'),
          problem(1, 'missing role'),
          problem(1, 'missing expiry: set expires_in (30m, 8h, 7d or never) or expires_at'),
          problem(1, 'missing justification'),
          problem(2, 'each line must be a JSON object'),
        ],
      });
      expect(await posts(sandbox(), '/v1/users/:id/roles')).toBe(before);
    },
  );
});

describe('svc roles assign --file: plans, failures and re-runs', () => {
  it('--dry-run shows what would be granted, skipped or fail, changes nothing, and exits 7 when a row would fail', async () => {
    const { name, id, path } = await grantsFile([
      [bulkUser(30), '8h', 'a'],
      [bulkUser(31), '8h', 'b'],
      ['usr_ghost', '8h', 'c'],
    ]);
    await call(sandbox(), 'POST', `/v1/users/${bulkUser(31)}/roles`, {
      token: sandbox().adminToken,
      tenant: svc.env().SVC_TENANT,
      body: { role_id: id, idempotency_key: `setup-${id}` },
    });
    const clock = fixedClock();
    const before = await posts(sandbox(), '/v1/users/:id/roles');
    const r = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--concurrency', '1'], {
      clock,
    });
    const inPlace = (await held(sandbox(), bulkUser(31))).find((a) => a.role_id === id)!.audit_trail_id;
    expect(r.stdout).toBe(
      `2\tgrant\t${bulkUser(30)}\t${name}\t${isoSeconds(clock.ms + 8 * H)}\t\t\n` +
        `3\tskip\t${bulkUser(31)}\t${name}\tnever\t${inPlace}\talready_assigned\n` +
        `4\tfail\tusr_ghost\t${name}\t\t\tuser usr_ghost not found; see \`svc users ls\` for the users of the tenant (\`svc users ls --id ID\` checks an id)\n`,
    );
    expect(r.stderr).toBe(
      'dry run: 1 would be granted, 1 would be skipped, 1 would fail\n' +
        'error: 1 of 3 items would fail: line 4: user usr_ghost not found; nothing was changed; fix them before running without --dry-run\n',
    );
    expect(r.code).toBe(7);
    expect(await posts(sandbox(), '/v1/users/:id/roles')).toBe(before);
    expect(existsSync(svc.journals) ? readdirSync(svc.journals) : []).toEqual([]);
  });

  it('--dry-run plans a grant to the caller themself as a failure, as the real run is refused (self_assignment)', async () => {
    const { name, path } = await grantsFile([
      ['usr_admin', '8h', 'me'],
      [bulkUser(32), '8h', 'b'],
    ]);
    const clock = fixedClock();
    const dry = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--concurrency', '1'], {
      clock,
    });
    // The platform's own words for it (the real run's row below says the same).
    const self = 'you cannot grant roles to yourself; ask another administrator';
    expect([dry.code, dry.stdout]).toEqual([
      7,
      `2\tfail\tusr_admin\t${name}\t\t\t${self}\n` +
        `3\tgrant\t${bulkUser(32)}\t${name}\t${isoSeconds(clock.ms + 8 * H)}\t\t\n`,
    ]);
    expect(dry.stderr).toBe(
      'dry run: 1 would be granted, 0 would be skipped, 1 would fail\n' +
        `error: 1 of 2 items would fail: line 2: ${self}; nothing was changed; fix them before running without --dry-run\n`,
    );
    // The real run: the platform refuses that row and grants the other.
    // (Its own journal, kept for the failed row, out of the way of the other tests' journals.)
    const journal = `${path}.journal`;
    const real = await svc.run(
      ['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1', '--journal', journal],
      { clock },
    );
    expect(real.code).toBe(7);
    expect(
      ndjson(real.stdout).map((r) => [
        r.user,
        r.status,
        (r.error as { code?: string })?.code,
        r.error?.message,
      ]),
    ).toEqual([
      ['usr_admin', 'failed', 'self_assignment', self],
      [bulkUser(32), 'ok', undefined, undefined],
    ]);
  });

  // Review s10 a, 4: --extend of a role the caller holds asks to move its expiry, and is refused for
  // that (dry run and real run alike), not as a grant.
  it('--extend of a role the caller holds: refused as a change of its own expiry, in the dry run too', async () => {
    const path = svc.file('extend-self.csv', `${HEADER}usr_admin,tenant_admin,8h,mine\n`);
    const clock = fixedClock();
    const self = 'you cannot change the expiry of your own roles; ask another administrator';
    const dry = await svc.run(['roles', 'assign', '--file', path, '--extend', '--dry-run', '--ndjson'], {
      clock,
    });
    expect(dry.code, dry.stderr).toBe(7);
    expect(ndjson(dry.stdout).map((r) => [r.plan, (r.error as { message?: string })?.message])).toEqual([
      ['fail', self],
    ]);
    const real = await svc.run(
      ['roles', 'assign', '--file', path, '--extend', '--ndjson', '--journal', `${path}.journal`],
      { clock },
    );
    expect(real.code, real.stderr).toBe(7);
    expect(
      ndjson(real.stdout).map((r) => [
        r.status,
        (r.error as { code?: string; message?: string })?.code,
        r.error?.message,
      ]),
    ).toEqual([['failed', 'self_assignment', self]]);
  });

  it('--extend moves the expiry of rows already held (planned as extend), and grants the others', async () => {
    const { name, id, path } = await grantsFile([
      [bulkUser(35), '8h', 'a'],
      [bulkUser(36), '8h', 'longer'],
      [bulkUser(37), 'never', 'same'],
    ]);
    const admin = { token: sandbox().adminToken, tenant: svc.env().SVC_TENANT };
    const shortly = new Date(Date.now() + H).toISOString().replace(/\.\d+Z$/, 'Z');
    await call(sandbox(), 'POST', `/v1/users/${bulkUser(36)}/roles`, {
      ...admin,
      body: { role_id: id, expires_at: shortly, idempotency_key: `setup-36-${id}` },
    });
    await call(sandbox(), 'POST', `/v1/users/${bulkUser(37)}/roles`, {
      ...admin,
      body: { role_id: id, idempotency_key: `setup-37-${id}` },
    });
    const clock = fixedClock();
    const until = isoSeconds(clock.ms + 8 * H);
    const dry = await svc.run(
      ['roles', 'assign', '--file', path, '--extend', '--dry-run', '--concurrency', '1'],
      {
        clock,
      },
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n').map((l) => l.split('\t').slice(0, 5).join(' '))).toEqual([
      `2 grant ${bulkUser(35)} ${name} ${until}`,
      `3 extend ${bulkUser(36)} ${name} ${until}`,
      `4 skip ${bulkUser(37)} ${name} never`,
      '',
    ]);
    const r = await svc.run(
      ['roles', 'assign', '--file', path, '--extend', '--ndjson', '--concurrency', '1'],
      {
        clock,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout).map((x) => [x.line, x.status, x.reason ?? null, x.expires_at])).toEqual([
      [2, 'ok', null, until],
      [3, 'ok', 'expiry_updated', until],
      [4, 'skipped', 'already_assigned', null],
    ]);
    expect(r.stderr).toMatch(
      /^✓ 2 granted or extended, 1 skipped in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)\n$/,
    );
    const moved = (await held(sandbox(), bulkUser(36))).find((a) => a.role_id === id)!;
    expect(moved).toMatchObject({
      expires_at: until,
      update_audit_trail_id: ndjson(r.stdout)[1].audit_trail_id,
    });
  });

  it('a failed row keeps the journal; the same command resumes, and the row gets a new attempt (and key)', async () => {
    const late = 'usr_late_arrival';
    const { id, path } = await grantsFile([
      [bulkUser(40), '8h', 'a'],
      [late, '8h', 'b'],
    ]);
    const first = await svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1']);
    expect(first.code).toBe(7);
    expect(ndjson(first.stdout).map((x) => [x.line, x.status, x.error?.code ?? null])).toEqual([
      [2, 'ok', null],
      [3, 'failed', 'not_found'],
    ]);
    // --ndjson: the summary line, then the error as one JSON object (the last line of stderr).
    const [summary, last] = first.stderr.trimEnd().split('\n');
    expect(summary).toMatch(/^1 granted, 1 failed in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)$/);
    expect(JSON.parse(last!).error).toMatchObject({
      code: 'partial_failure',
      exit_code: 7,
      message: '1 of 2 items failed: line 3: user usr_late_arrival not found',
      hint: expect.stringMatching(
        /^fix the file and run it again: a new run, rows already granted are skipped; or run the same command again with the same profile, logged in as the same user or with the same API key, to retry the failed rows \(journal .*roles-assign-[0-9a-f]{16}\.ndjson; delete it once the fixed file has run\)$/,
      ),
    });
    // The user arrives; the stored 404 of the first attempt must not answer the second.
    sandbox().state.identity.addUser({
      id: late,
      name: 'Late',
      email: 'late@acme.example',
      org_id: 'org_demo',
      org_role: null,
    });
    const again = await svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1']);
    expect([again.code, afterResuming(again.stderr)]).toEqual([
      0,
      expect.stringMatching(/^✓ 1 granted, 1 skipped in/),
    ]);
    expect(ndjson(again.stdout).map((x) => [x.line, x.status, x.reason ?? null])).toEqual([
      [2, 'skipped', 'journal'],
      [3, 'ok', null],
    ]);
    expect(await assignments(sandbox(), id)).toEqual({ total: 2, active: 2, users: 2, duplicates: 0 });
    expect(readdirSync(svc.journals)).toEqual([]);
  });

  it('a failed row: fixing the file makes a new run, in which the rows already granted are skipped (as the hint says)', async () => {
    const { name, id, path } = await grantsFile([
      [bulkUser(44), '8h', 'a'],
      ['usr_typo_user', '8h', 'b'],
    ]);
    const first = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '1']);
    expect(first.code).toBe(7);
    // The failed row says where to look for the right id, as `svc roles assign USER ROLE` does.
    expect(first.stdout.split('\n')[1]).toBe(
      `3\tfailed\tusr_typo_user\t${name}\t\t\tuser usr_typo_user not found; see \`svc users ls\` for the users of the tenant (\`svc users ls --id ID\` checks an id)`,
    );
    const journal = /\(journal (\S+);/.exec(first.stderr)![1]!;
    expect(first.stderr).toContain(
      `error: 1 of 2 items failed: line 3: user usr_typo_user not found; fix the file and run it again: a new run, rows already granted are skipped; or run the same command again with the same profile, logged in as the same user or with the same API key, to retry the failed rows (journal ${journal}; delete it once the fixed file has run); --ndjson prints one result per item\n`,
    );
    expect(existsSync(journal)).toBe(true);
    const fixed = svc.file(
      `${name}.csv`,
      `${HEADER}${bulkUser(44)},${name},8h,a\n${bulkUser(45)},${name},8h,b\n`,
    );
    const again = await svc.run(['roles', 'assign', '--file', fixed, '--ndjson', '--concurrency', '1']);
    expect([again.code, again.stderr]).toEqual([0, expect.stringMatching(/^✓ 1 granted, 1 skipped in/)]);
    expect(ndjson(again.stdout).map((x) => [x.line, x.status, x.reason ?? null])).toEqual([
      [2, 'skipped', 'already_assigned'],
      [3, 'ok', null],
    ]);
    expect(await assignments(sandbox(), id)).toEqual({ total: 2, active: 2, users: 2, duplicates: 0 });
  });

  it('grant, revoke, grant again: every run does what it says (keys belong to one run, not to the row)', async () => {
    const { id, path } = await grantsFile([
      [bulkUser(50), 'never', 'regrant'],
      [bulkUser(51), 'never', 'regrant'],
    ]);
    const grant = () => svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1']);
    expect((await grant()).code).toBe(0);
    expect((await svc.run(['roles', 'revoke', '--file', path, '--yes'])).code).toBe(0);
    expect(await held(sandbox(), bulkUser(50))).toEqual([]);
    const third = await grant();
    expect([third.code, third.stderr]).toEqual([0, expect.stringMatching(/^✓ 2 granted in/)]);
    expect(ndjson(third.stdout).map((x) => [x.status, x.replayed ?? null])).toEqual([
      ['ok', null],
      ['ok', null],
    ]);
    expect((await held(sandbox(), bulkUser(50))).map((a) => a.role_id)).toEqual([id]);
    // A later run of a finished file finds the grants in place: the API says so, nothing twice.
    const fourth = await grant();
    expect(ndjson(fourth.stdout).map((x) => [x.status, x.reason])).toEqual([
      ['skipped', 'already_assigned'],
      ['skipped', 'already_assigned'],
    ]);
    expect(await assignments(sandbox(), id)).toEqual({ total: 4, active: 2, users: 2, duplicates: 0 });
  });

  it('Ctrl-C: rows in flight finish, the journal is kept, exit 130; the same command resumes the run', async () => {
    // The grants after the first 10 are held at the proxy until the test opens it: Ctrl-C comes
    // once all 4 workers wait on one, so 14 rows are done and 26 still to go whatever the load.
    // (600 rows and a Ctrl-C once the platform held 100 was a race the test could lose, and so
    // slow that two suites at once ran it past the 60 s limit.)
    const rows = Array.from({ length: 40 }, (_, i): [string, string, string] => [
      bulkUser(100 + i),
      '8h',
      'ctrl-c',
    ]);
    const { id, path } = await grantsFile(rows);
    const env = { SVC_BASE_URL: holding().url };
    hold.passed = 0;
    hold.waiting = 0;
    const open = gate();
    hold.until = open.until;
    const controller = new AbortController();
    const clock = fixedClock();
    const first = svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '4'], {
      env,
      clock,
      signal: controller.signal,
    });
    while (hold.waiting < 4) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    open.open();
    const r = await first;
    expect(r.code).toBe(130);
    const error = JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!).error;
    expect(error.message).toBe('interrupted after 14 of 40');
    expect(error.hint).toMatch(
      /^run the same command again with the same profile, logged in as the same user or with the same API key, to resume \(journal .*roles-assign-[0-9a-f]{16}\.ndjson\)$/,
    );
    const done = ndjson(r.stdout);
    expect(done.every((x) => x.status === 'ok')).toBe(true);
    expect(done).toHaveLength(14);
    // Every request that was sent finished and was recorded: the platform holds exactly those.
    expect((await assignments(sandbox(), id)).total).toBe(14);
    // A dry run now tells what the interrupted run did (from its journal) and what is left.
    const plan = ndjson(
      (await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--ndjson'], { env, clock })).stdout,
    );
    expect(plan.filter((x) => x.plan === 'skip' && x.reason === 'journal')).toHaveLength(14);
    expect(plan.filter((x) => x.plan === 'grant')).toHaveLength(26);
    // Resumed hours later: "8h" still counts from the first start, so the requests are the same.
    clock.ms += 2 * H;
    const rest = await svc.run(['roles', 'assign', '--file', path, '--ndjson'], { env, clock });
    expect(rest.code, rest.stderr).toBe(0);
    const second = ndjson(rest.stdout);
    expect(second.filter((x) => x.reason === 'journal')).toHaveLength(14);
    expect(new Set(second.map((x) => x.expires_at))).toEqual(new Set([isoSeconds(clock.ms - 2 * H + 8 * H)]));
    expect(await assignments(sandbox(), id)).toEqual({
      total: 40,
      active: 40,
      users: 40,
      duplicates: 0,
    });
  });

  it('under a rate limit (429 with Retry-After) every worker slows down and every row is granted once', async () => {
    // 4 requests a second against 8 workers: the first burst is over the limit however slow the
    // machine. svc's waits are virtual and move the sandbox's clock, which refills the bucket,
    // so the run is the same on a loaded machine as on an idle one and takes no real second.
    const rows = Array.from({ length: 24 }, (_, i): [string, string, string] => [
      bulkUser(1200 + i),
      '8h',
      '429',
    ]);
    const { id, path } = await grantsFile(rows);
    const clock = virtualClock(Date.now());
    const wait = clock.sleep;
    clock.sleep = (ms, signal) => {
      sandbox().state.clock.advance(ms);
      return wait(ms, signal);
    };
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { rate_limit: 4, retry_after: '1' } });
    try {
      const r = await svc.run(['roles', 'assign', '--file', path, '--ndjson'], { clock });
      expect(r.code, r.stderr).toBe(0);
    } finally {
      await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { rate_limit: 0 } });
    }
    const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
    const refused = stats['POST /v1/users/:id/roles 429']!;
    expect(refused).toBeGreaterThan(0);
    // Each 429 is waited out for its Retry-After, once.
    expect(clock.waits).toEqual(Array(refused).fill(1000));
    expect(await assignments(sandbox(), id)).toEqual({ total: 24, active: 24, users: 24, duplicates: 0 });
  });

  it('refuses a --journal of another operation', async () => {
    const a = await grantsFile([
      [bulkUser(1600), '8h', 'a'],
      ['usr_ghost', '8h', 'a'],
    ]);
    const b = await grantsFile([[bulkUser(1601), '8h', 'b']]);
    const journal = `${svc.dir}/shared.journal`;
    expect((await svc.run(['roles', 'assign', '--file', a.path, '--journal', journal])).code).toBe(7);
    const r = await svc.run(['roles', 'assign', '--file', b.path, '--journal', journal]);
    expect([r.code, r.stderr]).toEqual([
      2,
      `error: journal ${journal} belongs to another operation; use the same file, flags, profile, credential and tenant to resume, or pass another --journal\n`,
    ]);
  });

  it.each([
    [['--concurrency', '2'], '--concurrency only works with --file'],
    [['--dry-run'], '--dry-run only works with --file'],
    [['--journal', 'j'], '--journal only works with --file'],
  ])('%j without --file is a usage error', async (flags, message) => {
    const r = await svc.run(['roles', 'assign', 'usr_x', 'tenant_viewer', ...flags]);
    expect([r.code, r.stderr]).toEqual([2, `error: ${message}\n`]);
  });
});
