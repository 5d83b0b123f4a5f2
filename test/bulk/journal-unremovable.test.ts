/**
 * fix-files18 #3: a run that ends with nothing left to resume removes its journal; one that cannot
 * be removed (a read-only disk, another user's sticky directory) stayed without a word, and the
 * same command, run again to do the same thing anew (grant, revoke, grant again), then printed the
 * old results and did nothing. The run's result stands (exit 0), and one line says where the
 * journal is and what it makes the same command do. The failed removal is played through the
 * journal's disk seam (root removes anything a test can make).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { realJournalDisk } from '../../src/bulk/journal-disk.js';
import { assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox({ users: 4 });
const svc = bulkRunner(sandbox);
const timeless = (text: string) => text.replace(/ \(\d+\.\d s\)\n/g, ' (T s)\n');
/** The real journal disk, but `journal` cannot be removed (a read-only file system). */
const unremovable = (journal: string) => ({
  ...realJournalDisk,
  remove(path: string) {
    if (path === journal)
      throw Object.assign(new Error(`EROFS: read-only file system, unlink '${path}'`), { code: 'EROFS' });
    realJournalDisk.remove(path);
  },
});

describe('a journal that cannot be removed at the end of a run', () => {
  it('the run succeeds, and one line says the journal stays, where, and what the same command then does', async () => {
    const id = await customRole(sandbox(), 'stuck-journal');
    const rows = [1, 2].map((k) => `${bulkUser(k)},stuck-journal,never,stuck`).join('\n');
    const file = svc.file('stuck.csv', `user,role,expires_in,justification\n${rows}\n`);
    const journal = `${svc.dir}/stuck.ndjson`;
    const disk = unremovable(journal);
    const argv = ['roles', 'assign', '--file', file, '--journal', journal, '--ndjson'];
    const r = await svc.run(argv, { journalDisk: disk });
    expect(r.code).toBe(0);
    expect(timeless(r.stderr)).toBe(
      '✓ 2 granted in Acme Treasury (acme-treasury) (T s)\n' +
        `warning: the run's result stands, but its journal ${journal} could not be removed (read-only file system): the same command would print these results again and do nothing; remove it (\`rm ${journal}\`) before you run it again\n`,
    );
    expect(existsSync(journal)).toBe(true);

    // What the line says the same command does: the results again, nothing sent.
    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout).map((row) => [row.user, row.status, row.reason])).toEqual([
      [bulkUser(1), 'skipped', 'journal'],
      [bulkUser(2), 'skipped', 'journal'],
    ]);
    expect((await assignments(sandbox(), id)).total).toBe(2);
    expect(existsSync(journal)).toBe(false);
  });

  // Session 19 (words19 #4): with --json too the line is a warning as every other machine-mode one
  // is (README "Output": notes and warnings stay text lines on stderr; stdout is the data alone).
  it('with --json: the results array on stdout alone, the same warning line on stderr', async () => {
    await customRole(sandbox(), 'stuck-json');
    const file = svc.file(
      'stuck-json.csv',
      `user,role,expires_in,justification\n${bulkUser(3)},stuck-json,never,stuck\n`,
    );
    const journal = `${svc.dir}/stuck-json.ndjson`;
    const disk = unremovable(journal);
    const r = await svc.run(['roles', 'assign', '--file', file, '--journal', journal, '--json'], {
      journalDisk: disk,
    });
    expect(r.code).toBe(0);
    expect(
      JSON.parse(r.stdout).map((row: { user: string; status: string }) => [row.user, row.status]),
    ).toEqual([[bulkUser(3), 'ok']]);
    expect(timeless(r.stderr)).toBe(
      '✓ 1 granted in Acme Treasury (acme-treasury) (T s)\n' +
        `warning: the run's result stands, but its journal ${journal} could not be removed (read-only file system): the same command would print these results again and do nothing; remove it (\`rm ${journal}\`) before you run it again\n`,
    );
  });
});
