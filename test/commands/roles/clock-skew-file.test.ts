import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { ndjson } from '../../helpers/context.js';
import { call, near, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// A bulk file's durations (an expires_in column, or --expires-in for rows without one) count from
// the platform's clock, as single `roles assign --expires-in` does, when it differs from this
// machine's by more than a minute: one anchor per run, kept in the journal so a resumed run counts
// from the same time, and the dry run counts the same way. The sandbox's clock is moved ahead 2 h.
const svc = useSandboxContext({ users: 20 });
const dir = useTempDir('svc-skew-file-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MINUTE = 60_000;
const real = { clock: { now: () => Date.now() } };
const AHEAD =
  "warning: the platform's clock is 2 h ahead of this machine's; durations (expires_in, --expires-in) were counted from the platform's time";

const user = (n: number) => `usr_bulk_${String(n).padStart(6, '0')}`;
let files = 0;
function csv(text: string): string {
  const path = join(dir, `f${++files}.csv`);
  writeFileSync(path, text);
  return path;
}

describe('roles assign --file on a platform whose clock differs', () => {
  it('the sandbox clock moves 2 hours ahead', async () => {
    const r = await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 7200 } });
    expect(r.status).toBe(200);
  });

  it('--dry-run counts a row expires_in from the platform time, and the real run grants what it showed', async () => {
    const path = csv(`user,role,expires_in,justification\n${user(1)},tenant_viewer,45m,skew\n`);
    const dry = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--json'], real);
    expect(dry.code, dry.stderr).toBe(0);
    const [planned] = JSON.parse(dry.stdout);
    expect(planned.plan).toBe('grant');
    expect(
      near(planned.expires_at, (await sandboxNow(svc.sandbox())) + 45 * MINUTE),
      planned.expires_at,
    ).toBe(true);
    expect(dry.stderr.split('\n')[0]).toBe(AHEAD);

    const r = await svc.run(
      ['roles', 'assign', '--file', path, '--json', '--journal', join(dir, 'j1')],
      real,
    );
    expect(r.code, r.stderr).toBe(0);
    const [done] = JSON.parse(r.stdout);
    expect(done.status).toBe('ok');
    expect(near(done.expires_at, (await sandboxNow(svc.sandbox())) + 45 * MINUTE), done.expires_at).toBe(
      true,
    );
    // One warning for the run, however many rows count from it.
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([AHEAD]);
  });

  it('--expires-in fills in rows without an expiry, from the platform time', async () => {
    const path = csv(
      `user,role,justification\n${user(2)},tenant_viewer,skew\n${user(3)},tenant_viewer,skew\n`,
    );
    const r = await svc.run(
      ['roles', 'assign', '--file', path, '--expires-in', '30m', '--ndjson', '--journal', join(dir, 'j2')],
      real,
    );
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout);
    const at = (await sandboxNow(svc.sandbox())) + 30 * MINUTE;
    expect(rows.map((x) => [x.status, near(x.expires_at, at)])).toEqual([
      ['ok', true],
      ['ok', true],
    ]);
    expect(rows[0]!.expires_at).toBe(rows[1]!.expires_at);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([AHEAD]);
  });

  it('says nothing when no row counts a duration', async () => {
    const at = isoSeconds((await sandboxNow(svc.sandbox())) + 3 * 3600_000);
    const path = csv(`user,role,expires_at,justification\n${user(4)},tenant_viewer,${at},skew\n`);
    const r = await svc.run(
      ['roles', 'assign', '--file', path, '--json', '--journal', join(dir, 'j3')],
      real,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0].expires_at).toBe(at);
    expect(r.stderr).not.toContain('warning');
  });

  it('a resumed run counts from the anchor its journal keeps, after the platform clock moved again', async () => {
    const late = 'usr_late_skew';
    const path = csv(
      `user,role,expires_in,justification\n${user(5)},tenant_viewer,3h,skew\n${late},tenant_viewer,3h,skew\n`,
    );
    const journal = join(dir, 'j4');
    const argv = ['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1', '--journal', journal];
    const first = await svc.run(argv, real);
    expect(first.code, first.stderr).toBe(7);
    const [granted] = ndjson(first.stdout);
    expect(granted!.status).toBe('ok');
    expect(near(granted!.expires_at, (await sandboxNow(svc.sandbox())) + 180 * MINUTE)).toBe(true);
    // The anchor, on the platform's clock, is in the journal's first line.
    const header = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!);
    expect(Date.parse(header.anchor) + 180 * MINUTE).toBe(Date.parse(granted!.expires_at));

    await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 600 } });
    svc.sandbox().state.identity.addUser({
      id: late,
      name: 'Late',
      email: 'late-skew@acme.example',
      org_id: 'org_demo',
      org_role: null,
    });
    const dry = await svc.run([...argv, '--dry-run'], real);
    expect(ndjson(dry.stdout).map((x) => [x.plan, x.expires_at ?? null])).toEqual([
      ['skip', granted!.expires_at],
      ['grant', granted!.expires_at],
    ]);
    const again = await svc.run(argv, real);
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout).map((x) => [x.status, x.expires_at ?? null])).toEqual([
      ['skipped', granted!.expires_at],
      ['ok', granted!.expires_at],
    ]);
  });

  it('a resumed run whose duration has passed on the platform clock is refused before anything is sent', async () => {
    const path = csv(
      `user,role,expires_in,justification\n${user(6)},tenant_viewer,30m,a\nusr_ghost,tenant_viewer,30m,b\n`,
    );
    const journal = join(dir, 'j5');
    const argv = ['roles', 'assign', '--file', path, '--journal', journal];
    expect((await svc.run(argv, real)).code).toBe(7);
    const anchor = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!).anchor;
    await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 3600 } });
    const r = await svc.run(argv, real);
    expect(r.code).toBe(2);
    // Line 2 was granted by the first run (journaled): the resume skips it, its expiry is not judged.
    expect(r.stderr).not.toContain(`${path}:2:`);
    // One line for the run, not one per row (exploratory test s12, longrun12 finding 2).
    const ended = isoSeconds(Date.parse(anchor) + 30 * MINUTE);
    expect(r.stderr.split('\n').filter((l) => !l.startsWith('warning: '))).toEqual([
      `error: the run's expiry has passed on the platform's clock: expires_in 30m, counted from the run's start at ${anchor}, ended at ${ended}, for 1 row still to grant; nothing was sent; ` +
        `start a new run, which counts from its own start: remove the journal ${journal} and run the same command again (rows whose grant still holds are skipped)`,
      '',
    ]);
  });

  it('a platform behind this machine: a duration lasts what was asked, not that plus the difference', async () => {
    // The platform is 3 h 10 min ahead of real time by now; this machine's clock runs 6 hours ahead.
    const fast = { clock: { now: () => Date.now() + 6 * 3600_000 } };
    const path = csv(`user,role,expires_in,justification\n${user(7)},tenant_viewer,45m,skew\n`);
    const r = await svc.run(
      ['roles', 'assign', '--file', path, '--json', '--journal', join(dir, 'j6')],
      fast,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(near(JSON.parse(r.stdout)[0].expires_at, (await sandboxNow(svc.sandbox())) + 45 * MINUTE)).toBe(
      true,
    );
    expect(r.stderr).toMatch(/^warning: the platform's clock is 2 h 50 min behind this machine's;/);
  });
});
