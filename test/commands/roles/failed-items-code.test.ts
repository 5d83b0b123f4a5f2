/**
 * How a bulk run whose items failed ends, by one rule (attack26a F11; src/bulk/finish.ts
 * failedItems): exit 7 whether some or all of its items failed, a file of one row too (it is a
 * bulk run: its rows say which failed, the same command resumes it); the error's code says which:
 * `partial_failure` when some row was done or may have been (a failed row that says its change was
 * made: a replay made, a creation whose secret was not saved, a lost first answer: review27a F5),
 * `every_item_failed` when none was, `would_fail` for a dry run, where nothing ran. (One named id of `webhooks replay`/`dlq discard` is no bulk run: its
 * own error and exit code, test/commands/webhooks/replay.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole, fixedClock } from '../../helpers/bulk.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 200 });
const svc = bulkRunner(sandbox);
const HEADER = 'user,role,expires_in,justification\n';
let roles = 0;

async function grantsFile(users: string[]) {
  const name = `failed-items-${++roles}`;
  await customRole(sandbox(), name);
  const body = users.map((user) => `${user},${name},8h,why`).join('\n');
  return svc.file(`${name}.csv`, `${HEADER}${body}\n`);
}

/** The error object of a --json run: the last line of stderr. */
const errorOf = (stderr: string) => JSON.parse(stderr.trimEnd().split('\n').at(-1)!).error;

describe('a bulk run whose rows failed', () => {
  it('every row of a one-row file failed: exit 7, every_item_failed, after the counts', async () => {
    const path = await grantsFile(['usr_nobody_here']);
    const r = await svc.run(['roles', 'assign', '--file', path, '--json'], { clock: fixedClock() });
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([
      7,
      `0 granted, 1 failed in Acme Treasury (acme-treasury) (0.0 s)`,
    ]);
    expect(errorOf(r.stderr)).toMatchObject({
      code: 'every_item_failed',
      exit_code: 7,
      message: '1 of 1 item failed: line 2: user usr_nobody_here not found',
    });
  });

  it('some rows done, some failed: exit 7, partial_failure', async () => {
    const path = await grantsFile([bulkUser(150), 'usr_nobody_there']);
    const r = await svc.run(['roles', 'assign', '--file', path, '--json', '--concurrency', '1'], {
      clock: fixedClock(),
    });
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([
      7,
      `1 granted, 1 failed in Acme Treasury (acme-treasury) (0.0 s)`,
    ]);
    expect(errorOf(r.stderr)).toMatchObject({
      code: 'partial_failure',
      exit_code: 7,
      message: '1 of 2 items failed: line 3: user usr_nobody_there not found',
    });
  });

  it('a dry run whose rows would fail: exit 7, would_fail (nothing ran), in plain words too', async () => {
    const path = await grantsFile(['usr_nobody_at_all']);
    const r = await svc.run(['roles', 'assign', '--file', path, '--dry-run'], { clock: fixedClock() });
    expect(r.code).toBe(7);
    expect(r.stderr.split('\n').slice(-2)).toEqual([
      'error: 1 of 1 item would fail: line 2: user usr_nobody_at_all not found; nothing was changed; fix them before running without --dry-run',
      '',
    ]);
    const json = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--json'], {
      clock: fixedClock(),
    });
    expect([json.code, errorOf(json.stderr).code]).toEqual([7, 'would_fail']);
  });
});
