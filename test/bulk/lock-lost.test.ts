/**
 * review24b M1 (run2): a run whose journal lock a take-over moved aside while it ran (the taker
 * stopped between its watch and its move, a third run locking in that instant) went on beside the
 * third run. It now checks before each item that its lock is still the file it made, and stops.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { realJournalDisk } from '../../src/bulk/journal-disk.js';
import { assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { useSandbox } from '../helpers/sandbox.js';

const sleeps: ChildProcess[] = [];
afterAll(() => {
  for (const child of sleeps) child.kill('SIGKILL');
});

describe('svc roles assign --file, its journal lock taken over while it runs', () => {
  const sandbox = useSandbox({ users: 4 });
  const svc = bulkRunner(sandbox);

  it('stops before its next item: exit 6, the other run’s lock left, the rows not started not sent', async () => {
    const id = await customRole(sandbox(), 'lock-lost');
    const rows = [1, 2, 3].map((k) => `${bulkUser(k)},lock-lost,never,lost`).join('\n');
    const file = svc.file('lost.csv', `user,role,expires_in,justification\n${rows}\n`);
    const journal = svc.file('lost.ndjson', '');
    const third = spawn('sleep', ['300'], { stdio: 'ignore' });
    sleeps.push(third);
    let other = '';
    // After the first row's line: a take-over moves this run's lock aside, a third run locks.
    const disk = {
      ...realJournalDisk,
      write(fd: number, text: string) {
        realJournalDisk.write(fd, text);
        if (other === '' && text.includes('"status":"ok"')) {
          renameSync(`${journal}.lock`, `${journal}.lock.aside`);
          other = `${JSON.stringify({ pid: third.pid, host: hostname(), since: '2099-01-01T00:00:00Z', beat: 5 })}\n`;
          writeFileSync(`${journal}.lock`, other);
        }
      },
    };
    const r = await svc.run(['roles', 'assign', '--file', file, '--journal', journal, '--concurrency', '1'], {
      journalDisk: disk,
    });
    const [summary, error, ...more] = r.stderr.trimEnd().split('\n');
    expect([r.code, r.stdout.split('\n').length, summary, error, more]).toEqual([
      6,
      2,
      expect.stringMatching(/^1 granted, 2 not started in Acme Treasury \(acme-treasury\) \([\d.]+ s\)$/),
      `error: the lock ${journal}.lock is no longer this run's: another svc run took it over while this one was stopped (for over 11 s, or between two steps of its own take-over); the rows not started were not sent; wait for that run to finish, then run the command again to pick up what is left (journal ${journal})`,
      [],
    ]);
    expect(readFileSync(`${journal}.lock`, 'utf8')).toBe(other);
    expect((await assignments(sandbox(), id)).total).toBe(1);
  });

  // review24e L1: a lock removed (by hand, a cleaner) was said "taken over by another svc run".
  it('its lock removed while it runs: stops, exit 6, saying it was removed', async () => {
    const id = await customRole(sandbox(), 'lock-removed');
    const rows = [1, 2, 3].map((k) => `${bulkUser(k)},lock-removed,never,gone`).join('\n');
    const file = svc.file('removed.csv', `user,role,expires_in,justification\n${rows}\n`);
    const journal = svc.file('removed.ndjson', '');
    let removed = false;
    const disk = {
      ...realJournalDisk,
      write(fd: number, text: string) {
        realJournalDisk.write(fd, text);
        if (!removed && text.includes('"status":"ok"')) {
          rmSync(`${journal}.lock`);
          removed = true;
        }
      },
    };
    const r = await svc.run(['roles', 'assign', '--file', file, '--journal', journal, '--concurrency', '1'], {
      journalDisk: disk,
    });
    const [summary, error, ...more] = r.stderr.trimEnd().split('\n');
    expect([r.code, summary, error, more]).toEqual([
      6,
      expect.stringMatching(/^1 granted, 2 not started in Acme Treasury \(acme-treasury\) \([\d.]+ s\)$/),
      `error: the lock ${journal}.lock was removed while this run ran (no svc run removes a lock it did not make: by hand, or a cleaner), so another run of this command could start beside it; the rows not started were not sent; once no other svc run of this command is running, run the command again to pick up what is left (journal ${journal})`,
      [],
    ]);
    expect(existsSync(`${journal}.lock`)).toBe(false);
    expect((await assignments(sandbox(), id)).total).toBe(1);
  });
});
