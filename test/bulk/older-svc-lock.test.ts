/**
 * A run holds the lock an svc before session 16 looks at for the same command (attack23b F1). That
 * svc names a run's journal by the command's hash (no caller); this one by the operation's, so it
 * saw no lock and ran the same command beside this one (two keysets: duplicate creations). Now a
 * run also holds `<kind>-<command hash>.ndjson.lock`, in a form that svc reads (pid, host, since).
 * Its locks are written by hand as that svc wrote them; its holder that runs is a `sleep` child.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WATCH_MS } from '../../src/bulk/lock.js';
import { runVerb, testVerb } from '../helpers/bulk-verb.js';
import { useTempDirs, virtualClock } from '../helpers/context.js';

const dirs = useTempDirs();
const hash = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');
const journals = () => join(dirs().SVC_STATE_DIR!, 'journals');
/** The journal an earlier svc keeps this command's run in: named by the command's hash alone. */
const olderJournal = (identity: string) =>
  join(
    journals(),
    `test-op-${hash(['test-op', 2, 'https://api.example', 'ten_9', identity]).slice(0, 16)}.ndjson`,
  );

const sleeps: ChildProcess[] = [];
afterAll(() => {
  for (const child of sleeps) child.kill('SIGKILL');
});
/** A live process: the earlier svc whose run holds the lock. */
function running(): number {
  const child = spawn('sleep', ['300'], { stdio: 'ignore' });
  sleeps.push(child);
  return child.pid!;
}

/** A verb of one item (test/helpers/bulk-verb.ts); `during` is called while the run holds its locks. */
const verb = (identity: string, during: () => void = () => {}) =>
  testVerb(['ok'], {
    identity: [identity],
    work: async () => {
      during();
      return {};
    },
  });

const run = (v: ReturnType<typeof verb>, clock = virtualClock()) =>
  runVerb(dirs, v, { env: { SVC_BASE_URL: 'https://api.example', SVC_TENANT: 'ten_9' }, clock });

describe("a run holds an earlier svc's lock of the same command", () => {
  it('while it runs, in the form that svc reads (pid, host, since), released at its end', async () => {
    const identity = randomUUID();
    const lock = `${olderJournal(identity)}.lock`;
    let seen: Record<string, unknown> | undefined;
    const r = await run(
      verb(identity, () => {
        seen = JSON.parse(readFileSync(lock, 'utf8'));
      }),
    );
    expect(r.code, r.stderr).toBe(0);
    // What an svc of session 13 checks: pid a number that runs, host this one, since a string.
    expect(seen).toMatchObject({ pid: process.pid, host: hostname(), since: expect.any(String) });
    expect(existsSync(lock)).toBe(false);
  });

  it("refuses to run while an earlier svc's run of the command holds it (no journal yet): exit 6, nothing done", async () => {
    const identity = randomUUID();
    const journal = olderJournal(identity);
    mkdirSync(journals(), { recursive: true });
    const pid = running();
    const since = new Date(Date.now() + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    writeFileSync(`${journal}.lock`, JSON.stringify({ pid, host: hostname(), since }));
    let worked = 0;
    const before = readdirSync(journals()).sort();
    const r = await run(verb(identity, () => worked++));
    expect([r.code, worked]).toEqual([6, 0]);
    expect(r.error).toMatchObject({
      code: 'journal_locked',
      message: `an earlier svc's run of this command is running (pid ${pid}, since ${since}; journal ${journal}); nothing was done`,
      hint: `wait for it to finish, then run the command again; if pid ${pid} is not svc (the lock is an older svc's: it names the pid alone), remove ${journal}.lock`,
    });
    // This run's own lock is released; the earlier svc's is left as it was.
    expect(readdirSync(journals()).sort()).toEqual(before);
  });

  it("another caller's run of this svc holding it is no conflict: the run goes on, its lock left", async () => {
    const identity = randomUUID();
    const lock = `${olderJournal(identity)}.lock`;
    mkdirSync(journals(), { recursive: true });
    const text = JSON.stringify({
      pid: running(),
      host: hostname(),
      since: new Date(Date.now() + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      beat: 5,
      command: 'test op',
      operation: 'another-callers-operation',
    });
    writeFileSync(lock, text);
    const r = await run(verb(identity));
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(lock, 'utf8')).toBe(text);
  });

  it('an empty one (its maker killed between making and writing it) is watched, then taken over: the run goes on (review23e L1)', async () => {
    const identity = randomUUID();
    const lock = `${olderJournal(identity)}.lock`;
    mkdirSync(journals(), { recursive: true });
    writeFileSync(lock, '');
    const clock = virtualClock();
    let seen = '';
    const r = await run(
      verb(identity, () => {
        seen = readFileSync(lock, 'utf8');
      }),
      clock,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(clock.waits).toEqual([WATCH_MS]);
    expect(r.stderr.split('\n').filter((line) => line.startsWith('waiting'))).toEqual([
      `waiting ${WATCH_MS / 1000} s to see whether ${lock}, which cannot be read, is its maker's, still being written`,
    ]);
    // Held by this run while it ran, released at its end.
    expect(JSON.parse(seen)).toMatchObject({ pid: process.pid });
    expect(existsSync(lock)).toBe(false);
  });

  it('a killed run of another PID namespace or boot: its two locks are watched once, one wait, one line (review23e L2)', async () => {
    const identity = randomUUID();
    const locks: Record<string, string> = {};
    const first = await run(
      verb(identity, () => {
        for (const name of readdirSync(journals())) {
          if (!name.endsWith('.lock')) continue;
          const text = readFileSync(join(journals(), name), 'utf8');
          if (JSON.parse(text).pid === process.pid) locks[name] = text;
        }
      }),
    );
    expect([first.code, Object.keys(locks).length], first.stderr).toEqual([0, 2]);
    // As that run left them when killed in another boot: its pid says nothing here.
    for (const [name, text] of Object.entries(locks))
      writeFileSync(
        join(journals(), name),
        JSON.stringify({ ...JSON.parse(text), pid: 1, boot: 'a-boot-before', start: '1' }),
      );
    const clock = virtualClock();
    const r = await run(verb(identity), clock);
    expect(r.code, r.stderr).toBe(0);
    expect(clock.waits).toEqual([WATCH_MS]);
    expect(r.stderr.split('\n').filter((line) => line.startsWith('waiting'))).toHaveLength(1);
    for (const name of Object.keys(locks)) expect(existsSync(join(journals(), name))).toBe(false);
  });
});
