import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { useSandbox } from '../helpers/sandbox.js';
import { journalFiles } from '../helpers/webhooks.js';

// attack25a F10: a grants file whose run ended unfinished (a row of a user that does not exist),
// fixed and run again as another file, succeeded; the first file's journal stayed in the state
// directory and nothing said so. The run now says so once at its end: the path, how to resume or
// remove it. Journals are named by a hash of the whole command (input included): their header's
// `family` (the command, server, tenant and caller without the input) is what tells them.
const sandbox = useSandbox({ users: 30 });
const svc = bulkRunner(sandbox);

const grants = (name: string, role: string, users: string[]) =>
  svc.file(
    `${name}.csv`,
    `user,role,expires_in,justification\n${users.map((u) => `${u},${role},8h,j`).join('\n')}\n`,
  );

describe('a bulk run of another input says an earlier unfinished run of the same command is still there', () => {
  it('roles assign --file: the fixed file succeeds and names the first file’s journal once, at the end; a run after it is removed says nothing', async () => {
    await customRole(sandbox(), 'other-input');
    const first = await svc.run([
      'roles',
      'assign',
      '--file',
      grants('broken', 'other-input', [bulkUser(1), 'usr_ghost']),
      '--concurrency',
      '1',
    ]);
    expect(first.code, first.stderr).toBe(7);
    const [name] = journalFiles(svc.journals);
    const journal = join(svc.journals, name!);
    const started = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!).started_at;
    expect(first.stderr).not.toMatch(/earlier unfinished/);

    const fixed = await svc.run(['roles', 'assign', '--file', grants('fixed', 'other-input', [bulkUser(2)])]);
    expect(fixed.code, fixed.stderr).toBe(0);
    const note = `note: an earlier unfinished roles assign run of yours started at ${started}, against this server and tenant but of another input or other flags, is in ${journal}; to resume it, run the same command again with its input and flags as they were, or remove it (\`rm ${journal}\`)`;
    expect(fixed.stderr.trimEnd().split('\n').at(-1)).toBe(note);
    expect(fixed.stderr.split(note).length).toBe(2);
    expect(existsSync(journal)).toBe(true);

    rmSync(journal);
    const again = await svc.run([
      'roles',
      'assign',
      '--file',
      grants('fixed2', 'other-input', [bulkUser(3)]),
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/earlier unfinished/);
  });
});
