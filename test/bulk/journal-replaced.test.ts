/**
 * fix-files18 #2: a journal replaced between the run's reading it and its first write (someone
 * else's editor, a script, a second checkout of the same state directory) was said as a journal
 * that cannot be written (exit 1, journal_unwritable, "make room on its disk"). Nothing is wrong
 * with the disk: someone changed the file. It is exit 2, journal_changed, one line that says so,
 * that nothing was done, and the fix. A resumed run checks it before anything is sent (start()),
 * not at its first row's line, after that row was sent.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';
import { realJournalDisk } from '../../src/bulk/journal-disk.js';
import type { SvcError } from '../../src/errors.js';
import { assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { useSandbox } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const dir = useTempDir('svc-journal-replaced-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const now = () => Date.parse('2026-01-01T00:00:00Z');

/** What start() threw, or undefined. */
function startError(journal: Journal): SvcError | undefined {
  try {
    journal.start();
  } catch (error) {
    return error as SvcError;
  }
  return undefined;
}

describe('a journal replaced after svc read it', () => {
  it('a resumed run: start() refuses it (exit 2, journal_changed) and writes nothing into the new file', () => {
    const path = join(dir, 'resumed.ndjson');
    const first = Journal.load(path, 'op', now);
    first.start();
    first.record('row-1');
    const resumed = Journal.load(path, 'op', now);
    const other = `${readFileSync(path, 'utf8')}{"key":"row-2","status":"ok","at":"2026-01-01T00:00:00Z"}\n`;
    writeFileSync(`${path}.new`, other, { mode: 0o600 });
    renameSync(`${path}.new`, path);
    const error = startError(resumed);
    expect([error?.exitCode, error?.code, error?.message]).toEqual([
      2,
      'journal_changed',
      `the journal ${path} changed after svc read it (someone else wrote or replaced it), so svc will not record this run in it`,
    ]);
    expect(readFileSync(path, 'utf8')).toBe(other);
  });

  it('a new run: a file put where its journal goes after svc looked is refused the same way', () => {
    const path = join(dir, 'new.ndjson');
    const journal = Journal.load(path, 'op', now);
    writeFileSync(path, 'theirs\n', { mode: 0o600 });
    const error = startError(journal);
    expect([error?.exitCode, error?.code, error?.message]).toEqual([
      2,
      'journal_changed',
      `the journal ${path} was made after svc looked for it (someone else made it), so svc will not record this run in it`,
    ]);
    expect(readFileSync(path, 'utf8')).toBe('theirs\n');
  });
});

describe('svc roles assign --file --journal J, J replaced before the run writes it', () => {
  const sandbox = useSandbox({ users: 4 });
  const svc = bulkRunner(sandbox);

  it('exit 2, one line naming the change and the fix; nothing granted', async () => {
    const id = await customRole(sandbox(), 'replaced-journal');
    const rows = [1, 2].map((k) => `${bulkUser(k)},replaced-journal,never,replaced`).join('\n');
    const file = svc.file('replaced.csv', `user,role,expires_in,justification\n${rows}\n`);
    const journal = svc.file('replaced.ndjson', '');
    // Someone replaces the (empty) journal between svc's reading it and its opening it to write.
    const disk = {
      ...realJournalDisk,
      open(path: string, flag: 'a' | 'wx') {
        if (path === journal) {
          writeFileSync(`${journal}.new`, '', { mode: 0o600 });
          renameSync(`${journal}.new`, journal);
        }
        return realJournalDisk.open(path, flag);
      },
    };
    const r = await svc.run(['roles', 'assign', '--file', file, '--journal', journal], { journalDisk: disk });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: the journal ${journal} changed after svc read it (someone else wrote or replaced it), so svc will not record this run in it; nothing was granted; ` +
        `see what is there now with \`ls -l ${journal}\`; run the same command again to read it anew, or pass another --journal\n`,
    ]);
    expect((await assignments(sandbox(), id)).total).toBe(0);
  });
});
