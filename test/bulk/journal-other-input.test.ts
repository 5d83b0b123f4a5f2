import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/system/shell-words.js';
import { bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { endedPid } from '../helpers/ended-pid.js';
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

  it('is said only of a run no process holds (not one still going), and quotes a path with spaces', async () => {
    await customRole(sandbox(), 'other-input-held');
    // A state directory whose path has a space: the `rm` advice is one word of the shell.
    const env = { SVC_STATE_DIR: join(svc.dir, 'state with spaces') };
    const journals = join(env.SVC_STATE_DIR, 'journals');
    const first = await svc.run(
      ['roles', 'assign', '--file', grants('held', 'other-input-held', [bulkUser(4), 'usr_ghost'])],
      { env },
    );
    expect(first.code, first.stderr).toBe(7);
    const [name] = journalFiles(journals);
    const journal = join(journals, name!);
    const started = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!).started_at;
    // Its run still going (another terminal): a live process holds its lock (an older svc's form,
    // judged by its pid). Neither resume nor `rm` is advice for it: nothing is said.
    const holder = spawn('sleep', ['300'], { stdio: 'ignore' });
    sleeps.push(holder);
    const lock = (pid: number) =>
      writeFileSync(
        `${journal}.lock`,
        `${JSON.stringify({ pid, host: hostname(), since: new Date().toISOString() })}\n`,
      );
    lock(holder.pid!);
    const running = await svc.run(
      ['roles', 'assign', '--file', grants('held-fixed', 'other-input-held', [bulkUser(5)])],
      { env },
    );
    expect(running.code, running.stderr).toBe(0);
    expect(running.stderr).not.toMatch(/earlier unfinished/);
    // Its process gone (a killed run leaves its lock): it is an earlier unfinished run again.
    lock(endedPid());
    const killed = await svc.run(
      ['roles', 'assign', '--file', grants('held-fixed2', 'other-input-held', [bulkUser(6)])],
      { env },
    );
    expect(killed.code, killed.stderr).toBe(0);
    expect(killed.stderr.trimEnd().split('\n').at(-1)).toBe(
      `note: an earlier unfinished roles assign run of yours started at ${started}, against this server and tenant but of another input or other flags, is in ${journal}; to resume it, run the same command again with its input and flags as they were, or remove it (\`rm ${shellQuote(journal)}\`)`,
    );
  });
});

const sleeps: ChildProcess[] = [];
afterAll(() => {
  for (const child of sleeps) child.kill('SIGKILL');
});
