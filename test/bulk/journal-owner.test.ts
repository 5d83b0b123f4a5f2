import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { useSandbox } from '../helpers/sandbox.js';
import { journalFiles } from '../helpers/webhooks.js';

// R9 (review16c): a journal is trusted by its contents, so one another local user planted in a
// shared SVC_STATE_DIR was resumed: `roles revoke --file` said "✓ 0 revoked, 3 skipped", exit 0,
// and revoked nothing. The journals directory and the journal file follow the config store's rule
// (ownership.ts): a directory others can write, or a journal that is not the user's (nor root's),
// is refused, exit 2, never resumed. Giving a file away needs root: those cases run as root only.
const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);
const root = typeof process.getuid === 'function' && process.getuid() === 0;

let files = 0;
/** An unfinished revoke run: its three rows done (recorded in the journal), a ghost row failed. */
async function unfinishedRevoke(from: number) {
  const name = `owner-${++files}`;
  await customRole(sandbox(), name);
  const users = [bulkUser(from), bulkUser(from + 1), bulkUser(from + 2)];
  const held = svc.file(`${name}-held.csv`, `user,role\n${users.map((u) => `${u},${name}`).join('\n')}\n`);
  const assign = (file: string) => [
    'roles',
    'assign',
    '--file',
    file,
    '--expires-in',
    '8h',
    '--justification',
    'setup',
  ];
  expect((await svc.run(assign(held))).code).toBe(0);
  const file = svc.file(
    `${name}.csv`,
    `user,role\n${[...users, 'usr_ghost'].map((u) => `${u},${name}`).join('\n')}\n`,
  );
  const argv = ['roles', 'revoke', '--file', file, '--ndjson', '--concurrency', '1', '--yes'];
  const before = new Set(journalFiles(svc.journals));
  expect((await svc.run(argv)).code).toBe(7);
  const [journal] = journalFiles(svc.journals).filter((f) => !before.has(f));
  // The grants are back: a run that skips its rows as done leaves them held.
  expect((await svc.run(assign(svc.file(`${name}-again.csv`, readFileSync(held))))).code).toBe(0);
  return { argv, journal: join(svc.journals, journal!) };
}

describe.skipIf(process.platform === 'win32')('a journal is resumed only from the user’s own files', () => {
  it.skipIf(!root)(
    'a journal file another user owns is refused, exit 2, nothing sent nor claimed',
    async () => {
      const { argv, journal } = await unfinishedRevoke(1);
      const text = readFileSync(journal, 'utf8');
      chownSync(journal, 65534, 65534);
      const r = await svc.run(argv);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(JSON.parse(r.stderr).error).toMatchObject({
        code: 'journal_owner',
        message: `journal ${journal} is a file that belongs to another user (uid 65534), so svc will not resume it`,
        hint: `see what it holds with \`cat ${journal}\`; if you did not put it there, remove it (\`rm ${journal}\`) and run the command again; svc changed nothing`,
      });
      expect(readFileSync(journal, 'utf8')).toBe(text);
      chownSync(journal, 0, 0);
    },
  );

  it('a journals directory others can write is refused, exit 2, its mode left alone', async () => {
    const { argv, journal } = await unfinishedRevoke(5);
    chmodSync(svc.journals, 0o777);
    try {
      const r = await svc.run(argv);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(JSON.parse(r.stderr).error).toMatchObject({
        code: 'journal_owner',
        message: `the journals directory ${svc.journals} is writable by others (mode 0777), so svc will not resume or record a run in it`,
        hint: `check what is in it, then \`chmod 700 ${svc.journals}\`, or point SVC_STATE_DIR at a private directory of your own; svc changed nothing`,
      });
      expect((await import('node:fs')).statSync(svc.journals).mode & 0o777).toBe(0o777);
    } finally {
      chmodSync(svc.journals, 0o700);
    }
    // Its own again, the user's run resumes: its rows are the journal's.
    const resumed = await svc.run(argv);
    expect(ndjson(resumed.stdout).map((row) => [row.line, row.status, row.reason ?? null])).toEqual([
      [2, 'skipped', 'journal'],
      [3, 'skipped', 'journal'],
      [4, 'skipped', 'journal'],
      [5, 'failed', null],
    ]);
    expect(journal).toContain(svc.journals);
  });

  // fix-store17 #2: a --journal path's directory (and those above it) was not checked: another
  // user who can write it can swap the journal for one whose rows say done.
  it('a --journal in a directory others can write is refused, exit 2, nothing made there', async () => {
    const shared = join(svc.dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    await customRole(sandbox(), 'journal-dir');
    const file = svc.file('journal-dir.csv', `user,role\n${bulkUser(9)},journal-dir\n`);
    const journal = join(shared, 'run.ndjson');
    const r = await svc.run(['roles', 'revoke', '--file', file, '--journal', journal, '--ndjson', '--yes']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'journal_owner',
      message: `--journal ${journal} is in ${shared}, which others can write (mode 0777), so svc will not resume or record a run in it`,
      hint: `check what is in it, then \`chmod go-w ${shared}\`, or give a --journal in a directory only you can write; svc changed nothing`,
    });
    expect(readdirSync(shared)).toEqual([]);
  });

  it('a journal of the user’s own that others can write is refused, never resumed', async () => {
    const { argv, journal } = await unfinishedRevoke(9);
    const text = readFileSync(journal, 'utf8');
    chmodSync(journal, 0o666);
    const r = await svc.run(argv);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'journal_owner',
      message: `journal ${journal} is a file that others can write (mode 0666), so svc will not resume it`,
      hint: `see what it holds with \`cat ${journal}\`; if it is as your run left it, \`chmod 600 ${journal}\` and run the command again; svc changed nothing`,
    });
    expect(readFileSync(journal, 'utf8')).toBe(text);
  });
});
