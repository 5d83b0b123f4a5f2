/**
 * `svc roles assignments` and `svc roles holders` are lists like every other: `--limit N` is a
 * total (default 50), `--cursor` continues, `--all` reads every page; expired, revoked and
 * role-deleted assignments are `--include-ended` (s8 newuser L4). `--all` used to mean those, so
 * for one release it says on stderr where they went.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ACME, call, requestCount, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext({ users: 60 });
const user = (n: number) => `usr_bulk_${String(n).padStart(6, '0')}`;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => user(from + i));
/** The first column of each row of a pipe's TSV. */
const firstColumn = (stdout: string) =>
  stdout === ''
    ? []
    : stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[0]);
const NOTE =
  'warning: --all reads every page, as on every list; expired, revoked and role-deleted assignments are shown with --include-ended (--no-include-ended: the ones in force, without this note)\n';

/** The cursor a listing's hint on stderr offers, for `command`. */
function cursorIn(stderr: string, shown: string, command: string): string {
  const match = new RegExp(`^${shown}; more with: ${command} --cursor (\\S+)  \\(or --all\\)\n$`).exec(
    stderr,
  );
  expect(match, stderr).not.toBeNull();
  return match![1]!;
}

describe('roles holders and roles assignments: --limit, --cursor, --all, --include-ended', () => {
  beforeAll(async () => {
    const created = await svc.run([
      'roles',
      'create',
      '--name',
      'l4-desk',
      '--permission',
      'rule.read',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const role = JSON.parse(created.stdout).id as string;
    // 55 holders at once (seed data), then the first one revoked: 54 active, 1 ended.
    const items = range(1, 55).map((user_id) => ({ user_id, role_id: role }));
    const seeded = await call(svc.sandbox(), 'POST', '/_sandbox/assignments', {
      body: { tenant_id: ACME, items },
    });
    expect(seeded.status, seeded.text).toBe(200);
    const more = [{ user_id: user(2), role_id: 'tenant_viewer' }];
    expect(
      (await call(svc.sandbox(), 'POST', '/_sandbox/assignments', { body: { tenant_id: ACME, items: more } }))
        .status,
    ).toBe(200);
    const revoked = await svc.run(['roles', 'revoke', user(1), 'l4-desk', '--yes']);
    expect(revoked.code, revoked.stderr).toBe(0);
  });

  it('holders: the first 50, where to continue on stderr, and the rest from that cursor', async () => {
    const first = await svc.run(['roles', 'holders', 'l4-desk']);
    expect(first.code).toBe(0);
    expect(firstColumn(first.stdout)).toEqual(range(2, 51));
    const cursor = cursorIn(first.stderr, '50 shown', 'svc roles holders l4-desk');
    const rest = await svc.run(['roles', 'holders', 'l4-desk', '--cursor', cursor]);
    expect([rest.code, firstColumn(rest.stdout), rest.stderr]).toEqual([0, range(52, 55), '']);
  });

  it('holders --limit N: at most N in total', async () => {
    const three = await svc.run(['roles', 'holders', 'l4-desk', '--limit', '3', '--json']);
    expect(three.code).toBe(0);
    expect(JSON.parse(three.stdout).map((a: { user_id: string }) => a.user_id)).toEqual(range(2, 4));
    cursorIn(three.stderr, '3 shown', 'svc roles holders l4-desk --json');
  });

  it('holders --all: every page of the live grants, and a note on where the ended ones went', async () => {
    const all = await svc.run(['roles', 'holders', 'l4-desk', '--all']);
    expect([all.code, firstColumn(all.stdout), all.stderr]).toEqual([0, range(2, 55), NOTE]);
    const ended = await svc.run(['roles', 'holders', 'l4-desk', '--all', '--include-ended']);
    expect([ended.code, firstColumn(ended.stdout), ended.stderr]).toEqual([0, range(1, 55), '']);
    expect(ended.stdout).toMatch(new RegExp(`^${user(1)}\\trevoked\\t`));
  });

  it('holders --include-ended --limit 2: the revoked grant counts among the N', async () => {
    const two = await svc.run(['roles', 'holders', 'l4-desk', '--include-ended', '--limit', '2']);
    expect(two.code).toBe(0);
    expect(firstColumn(two.stdout)).toEqual([user(1), user(2)]);
    const cursor = cursorIn(two.stderr, '2 shown', 'svc roles holders l4-desk --include-ended');
    const next = await svc.run([
      'roles',
      'holders',
      'l4-desk',
      '--include-ended',
      '--limit',
      '2',
      '--cursor',
      cursor,
    ]);
    expect([next.code, firstColumn(next.stdout)]).toEqual([0, [user(3), user(4)]]);
  });

  it('assignments --role: the same listing, continued with the same filters', async () => {
    const two = await svc.run(['roles', 'assignments', '--role', 'l4-desk', '--limit', '2']);
    expect([two.code, firstColumn(two.stdout)]).toEqual([0, range(2, 3)]);
    const cursor = cursorIn(two.stderr, '2 shown', 'svc roles assignments --role l4-desk');
    const next = await svc.run(['roles', 'assignments', '--role', 'l4-desk', '--cursor', cursor, '--all']);
    expect([next.code, firstColumn(next.stdout), next.stderr]).toEqual([0, range(4, 55), NOTE]);
  });

  it('assignments (the tenant): 50 by default, not every one', async () => {
    const first = await svc.run(['roles', 'assignments']);
    expect(first.code).toBe(0);
    expect(firstColumn(first.stdout)).toHaveLength(50);
    cursorIn(first.stderr, '50 shown', 'svc roles assignments');
  });

  it("assignments USER: --limit cuts the user's one answer, --include-ended adds the ended ones", async () => {
    const one = await svc.run(['roles', 'assignments', user(2), '--limit', '1']);
    expect([one.code, firstColumn(one.stdout), one.stderr]).toEqual([
      0,
      ['l4-desk'],
      `1 of 2 shown; every one with: svc roles assignments ${user(2)} --all\n`,
    ]);
    const live = await svc.run(['roles', 'assignments', user(1)], { tty: { stdout: true }, columns: 120 });
    expect([live.code, live.stdout, live.stderr]).toEqual([
      0,
      '',
      `${user(1)} holds no role in this tenant (--include-ended shows expired and revoked ones)\n`,
    ]);
    const all = await svc.run(['roles', 'assignments', user(1), '--all']);
    expect([all.code, all.stdout, all.stderr]).toEqual([0, '', NOTE]);
    const ended = await svc.run(['roles', 'assignments', user(1), '--include-ended']);
    expect([ended.code, ended.stderr]).toEqual([0, '']);
    expect(ended.stdout).toMatch(/^l4-desk\trevoked\t/);
  });

  it.each([
    [
      ['roles', 'assignments', user(2), '--cursor', 'abc'],
      "error: --cursor continues a listing of the tenant's assignments, and a user's come in one answer; drop --cursor (or add --role)\n",
    ],
    [['roles', 'holders', 'l4-desk', '--limit', '0'], /^error: --limit/],
    [['roles', 'assignments', '--limit', 'x'], /^error: --limit/],
  ])('refuses %j (exit 2) before any request', async (argv, stderr) => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(argv);
    expect(r.code).toBe(2);
    expect(await requestCount(svc.sandbox())).toBe(before);
    if (typeof stderr === 'string') expect(r.stderr).toBe(stderr);
    else expect(r.stderr).toMatch(stderr);
  });
});
