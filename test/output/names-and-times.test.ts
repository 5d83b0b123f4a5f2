/**
 * At 80 columns a name is cut only as far as no two of its column read alike, and a time is whole
 * (attack22b F2, F3): `role.assigned` and `role.assignment_updated` both read `role.assign…`, two
 * roles `payments-reconciliation-approver-…` (or `payments…` in a bulk plan), an expiry
 * `2026-11-2…`, an audit time `87 seconds …`. In process, on a terminal of 70 or 80 columns.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textWidth } from '../../src/output/width.js';
import { bulkUser } from '../helpers/bulk.js';
import { sandboxNow, setSandboxClock, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext({ users: 2 });
const EMEA = 'payments-reconciliation-approver-emea';
const APAC = 'payments-reconciliation-approver-apac';
let start: number;
const dir = useTempDir('svc-names-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The cells of a table's lines (columns are two or more spaces apart; no cell here has two). */
const cells = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));

/** Runs svc on a terminal of `columns` at the sandbox's time `at`. */
async function terminal(argv: string[], at: number, columns = 80) {
  setSandboxClock(svc.sandbox(), at);
  const r = await svc.run(argv, { tty: { stdout: true }, columns, now: at });
  expect(r.code, r.stderr).toBe(0);
  for (const line of r.stdout.split('\n')) expect(textWidth(line)).toBeLessThanOrEqual(columns);
  return r;
}

beforeAll(async () => {
  start = await sandboxNow(svc.sandbox());
  const made = (argv: string[]) => svc.run(argv, { now: start });
  for (const [name, permissions] of [
    [EMEA, ['exception.read']],
    [APAC, ['exception.read', 'role.assign', 'role.manage']],
  ] as const) {
    const r = await made([
      'roles',
      'create',
      '--name',
      name,
      ...permissions.flatMap((p) => ['--permission', p]),
    ]);
    expect(r.code, r.stderr).toBe(0);
  }
});

describe('a name column is cut only to a width at which its values differ (attack22b F2)', () => {
  it('svc audit ls at 70 columns: a grant and an expiry change are two actions, and the times are whole', async () => {
    setSandboxClock(svc.sandbox(), start);
    const grant = await svc.run(
      ['roles', 'assign', bulkUser(1), EMEA, '--expires-in', '2h', '--justification', 'cover', '--yes'],
      { now: start },
    );
    expect(grant.code, grant.stderr).toBe(0);
    setSandboxClock(svc.sandbox(), start + 100_000);
    const moved = await svc.run(
      [
        'roles',
        'assign',
        bulkUser(1),
        EMEA,
        '--extend',
        '--expires-in',
        '3h',
        '--justification',
        'cover',
        '--yes',
      ],
      { now: start + 100_000 },
    );
    expect(moved.code, moved.stderr).toBe(0);

    const r = await terminal(['audit', 'ls', '--user', bulkUser(1), '--limit', '2'], start + 187_000, 70);
    // At 70 columns both actions read `role.assig…`, the times `87 seconds…` and `3 minutes …`:
    // role.assignment_updated is cut now only as far as it still differs from role.assigned.
    expect(cells(r.stdout).map((row) => row.slice(0, 3).join('|'))).toEqual([
      'ID|AT|ACTION',
      expect.stringMatching(/^aud_[0-9a-f]{6}…\|87 seconds ago\|role\.assignm…$/),
      expect.stringMatching(/^aud_[0-9a-f]{6}…\|3 minutes ago\|role\.assigned$/),
    ]);
  });

  it('svc roles ls: two roles whose names begin alike are told apart', async () => {
    const r = await terminal(['roles', 'ls'], start);
    const names = cells(r.stdout)
      .slice(1)
      .map((row) => row.find((cell) => cell.startsWith('payments-')))
      .filter((cell) => cell !== undefined);
    expect(names.sort()).toEqual([
      'payments-reconciliation-approver-a…',
      'payments-reconciliation-approver-e…',
    ]);
  });

  it('svc roles assign --file --dry-run: the plan tells the two roles apart, and its expiry is whole', async () => {
    const path = join(dir, 'grants.csv');
    writeFileSync(
      path,
      `user,role,expires_in,justification\n${bulkUser(2)},${EMEA},2h,cover\n${bulkUser(2)},${APAC},2h,cover\n`,
    );
    const r = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--concurrency', '1'], {
      tty: { stdout: true },
      columns: 80,
      now: start,
    });
    expect(r.code, r.stderr).toBe(0);
    // Nothing in the plan may be dropped and the names need 35 columns: the table is wider than
    // the terminal (which wraps it), and says why, rather than show two roles as `payments…`.
    expect(r.stdout).toBe(
      'LINE  PLAN   USER         ROLE                                 EXPIRES     AUDIT TRAIL ID  DETAIL\n' +
        '2     grant  usr_bulk_0…  payments-reconciliation-approver-e…  in 2 hours  -               -\n' +
        '3     grant  usr_bulk_0…  payments-reconciliation-approver-a…  in 2 hours  -               -\n',
    );
    expect(r.stderr).toContain(
      '(the table is wider than the terminal: the names in ROLE would read alike cut shorter; a pipe or --json shows them whole)\n',
    );
  });
});
