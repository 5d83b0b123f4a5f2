import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { afterResuming, assignments, bulkRunner, bulkUser } from '../helpers/bulk.js';
import { fillableJournalDisk } from '../helpers/disk.js';
import { useSandbox } from '../helpers/sandbox.js';

// review29c M3: session 28's double count after a full disk was fixed only for the verbs that
// marked their items in flight (roles assign --file, apply's grants). `roles revoke --file` cut by
// a full disk after a row's revocation said `5 revoked`, and its resumed run `✓ 6 revoked`: 11 of
// 10 rows. Every bulk verb's item is now marked in flight, so the resumed run counts that row the
// earlier run's.
const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);
const timeless = (text: string) => text.replace(/ \(\d+\.\d s\)\n/g, ' (T s)\n');

describe('svc roles revoke --file on a journal disk that fills up', () => {
  it('the row revoked but not journaled is counted the earlier run’s when resumed, never twice', async () => {
    const name = `revfull-${Date.now()}`;
    const users = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const { id } = await svc.grantedByFile(name, users);
    const file = svc.file(
      `${name}-revoke.csv`,
      `user,role\n${users.map((n) => `${bulkUser(n)},${name}`).join('\n')}\n`,
    );
    const journal = join(svc.dir, `${name}.journal`);
    const argv = ['roles', 'revoke', '--file', file, '--concurrency', '1', '--yes', '--journal', journal];
    // The lock, the first line, row 1's mark and line, row 2's mark: row 2's line fails.
    const { disk, full } = fillableJournalDisk(5);
    const first = await svc.run(argv, { journalDisk: disk });
    expect(first.code, first.stderr).toBe(1);
    expect(timeless(`${first.stderr.split('\n')[0]}\n`)).toBe(
      '2 revoked, 8 not started in Acme Treasury (acme-treasury) (T s)\n',
    );
    expect(first.stderr).toMatch(/stopped after 2 of 10, 1 of them revoked but not journaled/);
    full.room = Number.POSITIVE_INFINITY;
    const again = await svc.run(argv, { journalDisk: disk });
    expect(again.code, again.stderr).toBe(0);
    // 1 (journaled) + 1 (not journaled, the earlier run's) + 8 = 10 rows, each counted once.
    expect(timeless(afterResuming(again.stderr))).toBe(
      '✓ 8 revoked, 1 revoked by the run this one resumes, 1 skipped in Acme Treasury (acme-treasury) (T s)\n',
    );
    expect(await assignments(sandbox(), id)).toMatchObject({ total: 10, active: 0 });
    expect(existsSync(journal)).toBe(false);
  });
});
