import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { runInProcess } from '../helpers/context.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { BIN, baseEnv, bash, sandboxEnv, svc } from '../helpers/svc.js';

const sandbox = useSandbox({ users: 3000 });
const dir = mkdtempSync(join(tmpdir(), 'svc-roles-bulk-'));
const TENANT = tenantId('acme-treasury');
const env = sandboxEnv(sandbox, { NO_COLOR: '1' });

const user = (n: number) => `usr_bulk_${String(n).padStart(6, '0')}`;
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const lines = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const grants = async () => {
  const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([k]) => k.startsWith('POST /v1/users/:id/roles'))
    .reduce((sum, [, n]) => sum + n, 0);
};
const count = async (roleId: string) =>
  (await call(sandbox(), 'GET', `/_sandbox/assignments?tenant_id=${TENANT}&role_id=${roleId}`)).body;
/** A fresh custom role, so the platform's counts are this test's alone. */
const customRole = async (name: string): Promise<string> =>
  (
    await call(sandbox(), 'POST', '/v1/roles', {
      token: sandbox().adminToken,
      tenant: TENANT,
      body: { name, permissions: ['exception.read'], idempotency_key: `role-${name}` },
    })
  ).body.id;

describe('svc roles assign --file: what a file may look like', () => {
  it('reads a CSV with a BOM, CRLF line ends, quoted fields and blank lines, reporting each row by its line', async () => {
    const csv = file(
      'edge.csv',
      Buffer.from(
        '\uFEFFuser,role,expires_in,justification\r\n' +
          `${user(1)},tenant_viewer,8h,"onboarding, wave 1"\r\n` +
          '\r\n' +
          `"${user(2)}",tenant_viewer,7d,"says ""hi"""\r\n` +
          `${user(3)},tenant_viewer,never,"two\r\nlines"\r\n` +
          `${user(4)},tenant_viewer,30m,plain\r\n`,
      ),
    );
    const r = await svc(['roles', 'assign', '--file', csv, '--ndjson'], { env });
    expect(r.code, r.stderr).toBe(0);
    const results = lines(r.stdout).sort((a, b) => a.line - b.line);
    expect(results.map((x) => [x.line, x.status, x.user, x.role])).toEqual([
      [2, 'ok', user(1), 'tenant_viewer'],
      [4, 'ok', user(2), 'tenant_viewer'],
      [5, 'ok', user(3), 'tenant_viewer'],
      [7, 'ok', user(4), 'tenant_viewer'],
    ]);
    expect(results[2].expires_at).toBeNull();
    for (const x of results) expect(x.audit_trail_id).toMatch(/^aud_[0-9a-f]{24}$/);
    expect(r.stderr).toMatch(/^✓ 4 granted in \d+\.\d s\n$/);
    const held = await call(sandbox(), 'GET', `/v1/users/${user(2)}/roles`, {
      token: sandbox().adminToken,
      tenant: TENANT,
    });
    expect(held.body.items[0].justification).toBe('says "hi"');
    const multi = await call(sandbox(), 'GET', `/v1/users/${user(3)}/roles`, {
      token: sandbox().adminToken,
      tenant: TENANT,
    });
    expect(multi.body.items[0].justification).toBe('two\r\nlines');
    // The journal of a finished run is removed.
    expect(readdirSync(join(env.SVC_STATE_DIR!, 'journals'))).toEqual([]);
  });

  const header = 'user,role,expires_in,justification\n';
  it.each([
    [
      'a duplicate row',
      `${header}${user(10)},tenant_viewer,8h,a\n${user(11)},tenant_viewer,8h,b\n${user(10)},tenant_viewer,1h,c\n`,
      [`4: duplicate of line 2: ${user(10)} and tenant_viewer again`],
    ],
    [
      'an unknown role',
      `${header}${user(10)},tenant_veiwer,8h,a\n`,
      ['2: unknown role "tenant_veiwer" (did you mean tenant_viewer?)'],
    ],
    [
      'a bad duration',
      `${header}${user(10)},tenant_viewer,8 hours,a\n${user(11)},tenant_viewer,0m,a\n`,
      [
        '2: expires_in "8 hours" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never',
        '3: expires_in a duration must be longer than zero, got "0m"',
      ],
    ],
    [
      'an expiry in the past',
      `user,role,expires_at,justification\n${user(10)},tenant_viewer,2020-01-01T00:00:00Z,a\n`,
      ['2: expires_at 2020-01-01T00:00:00Z is in the past'],
    ],
    [
      'a time without a zone',
      `user,role,expires_at,justification\n${user(10)},tenant_viewer,2030-01-01 10:00,a\n`,
      [
        '2: expires_at "2030-01-01 10:00" is not an ISO 8601 time with a time zone (e.g. 2026-01-15T09:30:00Z)',
      ],
    ],
    [
      'both expiry columns',
      `user,role,expires_in,expires_at,justification\n${user(10)},tenant_viewer,8h,2030-01-01T00:00:00Z,a\n`,
      ['2: give expires_in or expires_at, not both'],
    ],
    [
      'a missing value',
      `${header}${user(10)},tenant_viewer,,a\n,tenant_viewer,8h,a\n${user(12)},tenant_viewer,8h,\n`,
      [
        '2: missing expiry: set expires_in (30m, 8h, 7d or never) or expires_at',
        '3: missing user',
        '4: missing justification',
      ],
    ],
    [
      'an organisation role',
      `${header}${user(10)},org_admin,8h,a\n`,
      ['2: org_admin is an organisation role; it cannot be granted in a tenant'],
    ],
    [
      'a row with an extra field',
      `${header}${user(10)},tenant_viewer,8h,a,b\n`,
      ['2: the number of fields differs from the header row'],
    ],
    [
      'an unclosed quote',
      `${header}${user(10)},tenant_viewer,8h,a\n${user(11)},tenant_viewer,8h,"b\n${user(12)},tenant_viewer,8h,c\n`,
      ['3: not valid CSV: Quote Not Closed: the quoted field that starts on this line never ends'],
    ],
    [
      'an unknown and a missing column',
      `usr,role,expires_in,justification\n${user(10)},tenant_viewer,8h,a\n`,
      ['1: unknown column "usr" (did you mean user?)', '1: missing column "user"'],
    ],
    [
      'no expiry or justification column',
      `user,role\n${user(10)},tenant_viewer\n`,
      [
        '1: no expires_in or expires_at column: add one, or pass --expires-in or --expires-at for every row',
        '1: no justification column: add one, or pass --justification for every row',
      ],
    ],
    ['only a header', header, ['1: the file has a header row but no rows']],
    ['an empty file', '', ['1: the file is empty']],
  ])('reports %s with its line number and sends nothing (exit 2)', async (_what, content, problems) => {
    const path = file('bad.csv', content);
    const before = await grants();
    const r = await svc(['roles', 'assign', '--file', path], { env });
    const count = new Set(problems.map((p) => p.split(':')[0])).size;
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `${problems.map((p) => `${path}:${p}\n`).join('')}error: ${count} ${count === 1 ? 'line' : 'lines'} of ${path} ${count === 1 ? 'has' : 'have'} problems; nothing was sent; fix them and run the command again (columns: user, role, expires_in or expires_at, justification)\n`,
    );
    expect(await grants()).toBe(before);
  });

  it('reads NDJSON from standard input; flags fill in what rows leave out', async () => {
    const input = `${JSON.stringify({ user: user(20), role: 'tenant_auditor' })}\n${JSON.stringify({ user: user(21), role: 'tenant_auditor', expires_at: '2099-01-01T00:00:00Z', justification: 'own' })}\n`;
    const r = await svc(
      ['roles', 'assign', '--file', '-', '--expires-in', '7d', '--justification', 'audit', '--ndjson'],
      { env, input },
    );
    expect(r.code, r.stderr).toBe(0);
    const results = lines(r.stdout).sort((a, b) => a.line - b.line);
    expect(results.map((x) => [x.line, x.status, x.user])).toEqual([
      [1, 'ok', user(20)],
      [2, 'ok', user(21)],
    ]);
    expect(results[1].expires_at).toBe('2099-01-01T00:00:00Z');
    const bad = await svc(['roles', 'assign', '--file', '-'], {
      env,
      input: '{"user":"u","rol":"x"}\n[1]\n',
    });
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'stdin:1: unknown field "rol" (did you mean role?)\n' +
        'stdin:1: missing role\n' +
        'stdin:1: missing expiry: set expires_in (30m, 8h, 7d or never) or expires_at\n' +
        'stdin:1: missing justification\n' +
        'stdin:2: each line must be a JSON object\n' +
        'error: 2 lines of stdin have problems; nothing was sent; fix them and run the command again (columns: user, role, expires_in or expires_at, justification)\n',
    ]);
  });
});

describe('plans, results and re-runs', () => {
  it('--dry-run prints what would be granted, what is in place and what would fail, and changes nothing', async () => {
    await call(sandbox(), 'POST', `/v1/users/${user(31)}/roles`, {
      token: sandbox().adminToken,
      tenant: TENANT,
      body: { role_id: 'tenant_lead', idempotency_key: 'dry-run-setup' },
    });
    const csv = file(
      'plan.csv',
      `user,role,expires_in,justification\n${user(30)},tenant_lead,8h,a\n${user(31)},tenant_lead,8h,b\nusr_ghost,tenant_lead,8h,c\n`,
    );
    const before = await grants();
    const r = await svc(['roles', 'assign', '--file', csv, '--dry-run'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((x) => [x[0], x[1], x[2], x[3]])).toEqual([
      ['2', 'grant', user(30), 'tenant_lead'],
      ['3', 'in_place', user(31), 'tenant_lead'],
      ['4', 'fail', 'usr_ghost', 'tenant_lead'],
    ]);
    expect(rows[1]![4]).toBe('never');
    expect(rows[1]![6]).toBe('already assigned');
    expect(rows[2]![6]).toBe('user usr_ghost not found');
    expect(r.stderr).toBe(
      'dry run: 1 would be granted, 1 already in place, 1 would fail; nothing was changed\n',
    );
    expect(await grants()).toBe(before);

    // The real run: one granted, one already in place (skipped), one failed → exit 7 and a journal.
    const run = await svc(['roles', 'assign', '--file', csv, '--ndjson'], { env });
    expect(run.code).toBe(7);
    const results = lines(run.stdout).sort((a, b) => a.line - b.line);
    expect(results.map((x) => [x.line, x.status, x.reason ?? x.error?.code])).toEqual([
      [2, 'ok', undefined],
      [3, 'skipped', 'already_assigned'],
      [4, 'failed', 'not_found'],
    ]);
    expect(results[2].error.message).toBe('user usr_ghost not found');
    expect(run.stderr).toMatch(
      /^1 granted, 1 skipped, 1 failed in \d+\.\d s\nerror: 1 of 3 item\(s\) failed; fix them and run the same command again to resume \(journal .*roles-assign-[0-9a-f]{16}\.ndjson\); --ndjson prints one result per item\n$/,
    );
    // Running the same file again skips what the journal has and tries the failed row again.
    const again = await svc(['roles', 'assign', '--file', csv, '--ndjson'], { env });
    expect(again.code).toBe(7);
    expect(
      lines(again.stdout)
        .sort((a, b) => a.line - b.line)
        .map((x) => [x.line, x.status, x.reason ?? null]),
    ).toEqual([
      [2, 'skipped', 'journal'],
      [3, 'skipped', 'already_assigned'],
      [4, 'failed', null],
    ]);
  });

  it('prints one TSV line per row when piped, and a table at the end on a terminal', async () => {
    const csv = file(
      'out.csv',
      `user,role,expires_in,justification\n${user(40)},tenant_compliance,8h,a\n${user(41)},tenant_compliance,8h,b\n`,
    );
    const r = await svc(['roles', 'assign', '--file', csv], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'))
      .sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(rows.map((x) => x.slice(0, 4))).toEqual([
      ['2', 'ok', user(40), 'tenant_compliance'],
      ['3', 'ok', user(41), 'tenant_compliance'],
    ]);
    expect(rows[0]![5]).toMatch(/^aud_/);
    const revoke = await runInProcess(['roles', 'revoke', '--file', csv, '--yes'], env, {
      tty: { stdout: true },
      columns: 160,
      now: Date.now(),
    });
    expect(revoke.code, revoke.stderr).toBe(0);
    const table = revoke.stdout.trimEnd().split('\n');
    expect(table[0]).toMatch(/^LINE +STATUS +USER +ROLE +REVOKED +AUDIT TRAIL ID +DETAIL$/);
    expect(table[1]).toMatch(new RegExp(`^2 +ok +${user(40)} +tenant_compliance +now +aud_[0-9a-f]{24} +-$`));
    expect(revoke.stderr).toMatch(/^✓ 2 revoked in \d+\.\d s\n$/);
    const twice = await svc(['roles', 'revoke', '--file', csv, '--yes', '--ndjson'], { env });
    expect(twice.code).toBe(0);
    expect(lines(twice.stdout).map((x) => [x.status, x.reason])).toEqual([
      ['skipped', 'not_assigned'],
      ['skipped', 'not_assigned'],
    ]);
    const noYes = await svc(['roles', 'revoke', '--file', csv], { env });
    expect([noYes.code, noYes.stderr]).toEqual([
      2,
      `error: revoking the roles listed in ${csv} needs confirmation; pass --yes to confirm non-interactively\n`,
    ]);
  });

  it('re-running a finished file grants nothing twice: rows already held are skipped', async () => {
    const role = await customRole('rerun');
    const csv = file(
      'rerun.csv',
      `user,role,expires_in,justification\n${user(50)},rerun,1h,a\n${user(51)},rerun,never,b\n`,
    );
    expect((await svc(['roles', 'assign', '--file', csv], { env })).code).toBe(0);
    // A second later "1h" counts from another start, so the row has another idempotency key.
    const r = await bash(`sleep 1; svc roles assign --file '${csv}' --ndjson`, { env });
    expect(r.code, r.stderr).toBe(0);
    // "1h" counts from a new start, so the platform refuses a second grant (409) and the row is
    // skipped; "never" gives the same request as before, so the platform replays its first answer.
    const results = lines(r.stdout).sort((a, b) => a.line - b.line);
    expect(results.map((x) => [x.status, x.reason ?? null, x.replayed ?? null])).toEqual([
      ['skipped', 'already_assigned', null],
      ['ok', null, true],
    ]);
    expect(await count(role)).toEqual({ total: 2, active: 2, users: 2, duplicates: 0 });
  });

  it('Ctrl-C lets the rows in flight finish, keeps the journal and exits 130; the next run resumes', async () => {
    const role = await customRole('ctrl-c');
    const rows = Array.from({ length: 1500 }, (_, i) => `${user(1000 + i)},ctrl-c,8h,ctrl-c`).join('\n');
    const csv = file('ctrlc.csv', `user,role,expires_in,justification\n${rows}\n`);
    const child = spawn(
      process.execPath,
      [BIN, 'roles', 'assign', '--file', csv, '--ndjson', '--concurrency', '4'],
      {
        env: baseEnv(env),
      },
    );
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.stdout.on('data', (d) => {
      out += d;
      if (out.split('\n').length > 200 && !child.killed) child.kill('SIGINT');
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expect(err).toMatch(
      /\nerror: interrupted after [\d,]+ item\(s\); run the same command again to resume \(journal .*roles-assign-[0-9a-f]{16}\.ndjson\)\n$/,
    );
    const first = lines(out);
    expect(first.length).toBeGreaterThanOrEqual(200);
    expect(first.length).toBeLessThan(1500);
    expect(first.every((x) => x.status === 'ok')).toBe(true);
    // Every request that was sent finished and was recorded: the platform holds exactly those.
    expect((await count(role)).total).toBe(first.length);

    const resumed = await svc(['roles', 'assign', '--file', csv, '--ndjson'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const second = lines(resumed.stdout);
    expect(second.filter((x) => x.reason === 'journal')).toHaveLength(first.length);
    expect(second.filter((x) => x.status === 'ok')).toHaveLength(1500 - first.length);
    expect(await count(role)).toEqual({ total: 1500, active: 1500, users: 1500, duplicates: 0 });
  });

  it('under a rate limit (429 with Retry-After) every worker slows down and every row is granted once', async () => {
    const role = await customRole('rate-limited');
    const rows = Array.from({ length: 400 }, (_, i) => `${user(2500 + i)},rate-limited,8h,429`).join('\n');
    const csv = file('limited.csv', `user,role,expires_in,justification\n${rows}\n`);
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { rate_limit: 150, retry_after: '1' } });
    try {
      const r = await svc(['roles', 'assign', '--file', csv, '--ndjson'], {
        env: { ...env, SVC_MAX_RETRIES: '8' },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(lines(r.stdout).every((x) => x.status === 'ok')).toBe(true);
    } finally {
      await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { rate_limit: 0 } });
    }
    const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
    expect(stats['POST /v1/users/:id/roles 429']).toBeGreaterThan(0);
    expect(await count(role)).toEqual({ total: 400, active: 400, users: 400, duplicates: 0 });
  });
});
