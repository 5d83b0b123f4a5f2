// Over 300 lines: one test per rule of the one bulk operation (concurrency, journal, resume,
// halts, summaries), each with the same verb of the test's own; apart, the rules would read apart.
/**
 * The one bulk operation (src/bulk/operation.ts) with a verb of the test's own: no server, items
 * worked in-process, exact output on a Context over buffers. What each real bulk verb adds is
 * tested with it (test/commands/roles/assign-file.test.ts, test/commands/webhooks/replay.test.ts).
 */

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BulkVerb } from '../../src/bulk/operation.js';
import { NotFoundError } from '../../src/http/errors.js';
import { afterResuming } from '../helpers/bulk.js';
import { type Row, runVerb, testVerb } from '../helpers/bulk-verb.js';
import { useTempDirs, type VerbOptions } from '../helpers/context.js';
import { endedPid } from '../helpers/ended-pid.js';

const dirs = useTempDirs();

const verb = testVerb;
const run = (v: BulkVerb<string, Row>, options: VerbOptions = {}) => runVerb(dirs, v, options);

const journals = () => {
  const dir = join(dirs().SVC_STATE_DIR!, 'journals');
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe('runBulkOperation', () => {
  it('nothing to do: says so; --json prints an empty list; no journal is started', async () => {
    const empty = verb([], { empty: 'the queue is empty; nothing to touch' });
    expect(await run(empty)).toEqual({
      code: 0,
      error: undefined,
      stdout: '',
      stderr: 'the queue is empty; nothing to touch\n',
    });
    expect(await run(empty, { globals: { json: true } })).toMatchObject({
      code: 0,
      stdout: '[]\n',
      stderr: 'the queue is empty; nothing to touch\n',
    });
    expect(journals()).toEqual([]);
  });

  it('names the first three failures in its error, counts the rest, and keeps nothing to resume', async () => {
    const r = await run(verb(['ok', 'fail', 'fail', 'ok', 'fail', 'fail']));
    expect(r.code).toBe(7);
    expect(r.stdout).toBe(
      [
        '2\tk0\tok\t',
        '3\tk1\tfailed\tk1 not found',
        '4\tk2\tfailed\tk2 not found',
        '5\tk3\tok\t',
        '6\tk4\tfailed\tk4 not found',
        '7\tk5\tfailed\tk5 not found',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('2 touched, 4 failed (0.0 s)\n');
    expect(r.error).toMatchObject({
      message:
        '4 of 6 items failed: line 3: k1 not found; line 4: k2 not found; line 6: k4 not found; and 1 more',
    });
    // Failed rows are kept for the same command to try again once they are fixed.
    expect((r.error as { hint: string }).hint).toMatch(
      /^fix them and run the same command again with the same profile, logged in as the same user or with the same API key, to resume \(journal .+\.ndjson\); --ndjson prints one result per item$/,
    );
  });

  it('says how many results an earlier attempt had already done (not a resumed run: a lost answer)', async () => {
    // Earlier tests' unfinished journals would be named at the end (attack25a F10): not this test's matter.
    rmSync(join(dirs().SVC_STATE_DIR!, 'journals'), { recursive: true, force: true });
    const r = await run(verb(['replayed', 'ok', 'replayed']));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      '2 of these were done by an earlier attempt whose answer was lost; the platform answered with what it did then\n✓ 3 touched (0.0 s)\n',
    );
  });

  it('one named item: its failure is the command error, with its exit code', async () => {
    const r = await run(verb(['fail'], { single: true }));
    expect(r.error).toBeInstanceOf(NotFoundError);
    expect([r.code, r.stdout, r.stderr]).toEqual([5, '2\tk0\tfailed\tk0 not found\n', '']);
    const two = await run(verb(['fail', 'ok'], { single: true }));
    expect(two.code).toBe(7);
  });

  it('a dry run plans each item (touch, skip, fail) and changes nothing', async () => {
    const before = journals();
    const r = await run(verb(['ok', 'replayed', 'fail'], { dryRun: true }));
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('2\tk0\ttouch\t\n3\tk1\tskip\t\n4\tk2\tfail\twould fail\n');
    expect(r.stderr).toBe('dry run: 1 would be touched, 1 would be skipped, 1 would fail\n');
    expect(r.error).toMatchObject({
      message: '1 of 3 items would fail: line 4: would fail',
      hint: 'nothing was changed; fix them before running without --dry-run',
    });
    expect(journals()).toEqual(before);
  });

  it('draws progress on a terminal only when the output is for people', async () => {
    // Earlier tests' unfinished journals would be named at the end (attack25a F10): not this test's matter.
    rmSync(join(dirs().SVC_STATE_DIR!, 'journals'), { recursive: true, force: true });
    const many = Array.from({ length: 30 }, () => 'ok');
    const tty = await run(verb(many), { tty: { stderr: true } });
    expect(tty.stderr).toContain('touching');
    const json = await run(verb(many), { tty: { stderr: true }, globals: { json: true } });
    expect(json.stderr).not.toContain('touching');
    const pipe = await run(verb(many));
    expect(pipe.stderr).toBe('✓ 30 touched (0.0 s)\n');
  });

  it('a dumb terminal (TERM=dumb) gets no bar: it cannot redraw a line, so no \\r\\e[2K either', async () => {
    // Earlier tests' unfinished journals would be named at the end (attack25a F10): not this test's matter.
    rmSync(join(dirs().SVC_STATE_DIR!, 'journals'), { recursive: true, force: true });
    const many = Array.from({ length: 30 }, () => 'ok');
    const dumb = await run(verb(many), { tty: { stderr: true }, env: { TERM: 'dumb', NO_COLOR: '1' } });
    expect(dumb.stderr).toBe('✓ 30 touched (0.0 s)\n');
    const xterm = await run(verb(many), { tty: { stderr: true }, env: { TERM: 'xterm', NO_COLOR: '1' } });
    expect(xterm.stderr).toContain('\r\u001b[2Ktouching');
  });

  it('the bar fits the terminal the IOStreams report when the stream gives no width', async () => {
    const many = Array.from({ length: 30 }, () => 'ok');
    const narrow = await run(
      verb(many, { words: { act: 'touch', doing: 'touching every item of the file', done: 'touched' } }),
      {
        tty: { stderr: true },
        columns: 40,
      },
    );
    const frames = narrow.stderr.split('\r\u001b[2K').slice(1, -1);
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect([...frame].length, frame).toBeLessThan(40);
    // The label is cut to what the rate ("48/s" or "1234/s", the machine's speed) leaves of the width.
    expect(frames[0]).toMatch(/^touching every[^…]*… \d+\/30 \d+% · /);
  });

  it('journals under the operation: kind, server, tenant, identity and caller, hashed', async () => {
    const hash = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');
    const before = new Set(journals());
    const env = { SVC_BASE_URL: 'https://api.example', SVC_TENANT: 'ten_9' };
    const kept = await run(verb(['ok', 'fail'], { identity: ['file-hash'] }), { env });
    expect(kept.code).toBe(7);
    const command = hash(['test-op', 2, 'https://api.example', 'ten_9', 'file-hash']);
    // The caller: profile "default" with no credential (src/bulk/caller.ts).
    const caller = JSON.stringify(['default', 'none']);
    const name = `test-op-${hash(['test-op', 3, command, caller]).slice(0, 16)}.ndjson`;
    expect(journals().filter((j) => !before.has(j))).toEqual([name]);
    // The same command again resumes it: the done row is skipped, the failed one tried again.
    const again = await run(verb(['ok', 'ok'], { identity: ['file-hash'] }), { env });
    expect([again.code, afterResuming(again.stderr)]).toEqual([0, '✓ 1 touched, 1 skipped (0.0 s)\n']);
    expect(journals()).not.toContain(name);
    expect((kept.error as { hint: string }).hint).toContain(join(dirs().SVC_STATE_DIR!, 'journals', name));
  });

  it('holds its journal while it runs: a second run of the same operation is refused before it does anything', async () => {
    const journal = join(dirs().SVC_STATE_DIR!, 'held.ndjson');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const working = new Promise<void>((resolve) => {
      started = resolve;
    });
    const first = run(
      verb(['ok', 'ok'], {
        journal,
        identity: ['input-a'],
        work: async () => {
          started();
          await gate;
          return {};
        },
      }),
    );
    await working;
    let worked = 0;
    const second = await run(
      verb(['ok', 'ok'], {
        journal,
        identity: ['input-a'],
        prepare: async () => {
          worked++;
          return 2;
        },
      }),
    );
    expect([second.code, second.stdout, worked]).toEqual([6, '', 0]);
    expect(second.error).toMatchObject({
      code: 'journal_locked',
      message: expect.stringMatching(
        new RegExp(
          `^another svc test op of the same input is running \\(pid ${process.pid}, since .+\\); nothing was done$`,
        ),
      ),
      hint: `wait for it to finish, then run the command again to pick up what is left (journal ${journal})`,
    });
    // attack20 F11: another input (another file) given the same --journal is not "the same input":
    // what is true is that another run uses that journal, and the fix is another --journal.
    const other = await run(
      verb(['ok'], {
        journal,
        identity: ['input-b'],
        prepare: async () => {
          worked++;
          return 1;
        },
      }),
    );
    expect([other.code, other.stdout, worked]).toEqual([6, '', 0]);
    expect(other.error).toMatchObject({
      code: 'journal_locked',
      message: expect.stringMatching(
        new RegExp(
          `^journal ${journal} is in use by another svc test op \\(pid ${process.pid}, since .+\\), for another operation \\(another file, flags, profile, credential or tenant\\); nothing was done$`,
        ),
      ),
      hint: 'pass another --journal (one journal per operation), or wait for that run to finish',
    });
    release();
    expect((await first).code).toBe(0);
    expect(existsSync(`${journal}.lock`)).toBe(false);
    // Once the first has ended, the same command runs.
    expect((await run(verb(['ok'], { journal }))).code).toBe(0);
  });

  it('takes over a lock whose process is gone (SIGKILL): the resume is not blocked', async () => {
    const dir = join(dirs().SVC_STATE_DIR!, 'stale');
    mkdirSync(dir, { recursive: true });
    const journal = join(dir, 'j.ndjson');
    const gone = endedPid();
    writeFileSync(
      `${journal}.lock`,
      JSON.stringify({ pid: gone, host: hostname(), since: '2026-01-01T00:00:00Z' }),
    );
    const r = await run(verb(['ok'], { journal }));
    expect([r.code, r.stderr]).toEqual([0, '✓ 1 touched (0.0 s)\n']);
    expect(readdirSync(dir)).toEqual([]);
    // Our own pid, in a lock this process did not take: a killed predecessor that had the same
    // pid (a container started again). It is gone, and the resume is not refused by itself.
    writeFileSync(
      `${journal}.lock`,
      JSON.stringify({ pid: process.pid, host: hostname(), since: '2026-01-01T00:00:00Z' }),
    );
    expect((await run(verb(['ok'], { journal }))).code).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
    // Another host's lock cannot be checked: it is never taken over, and the message says how to remove it.
    writeFileSync(
      `${journal}.lock`,
      JSON.stringify({ pid: gone, host: 'elsewhere', since: '2026-01-01T00:00:00Z' }),
    );
    const other = await run(verb(['ok'], { journal }));
    expect(other.code).toBe(6);
    expect(other.error).toMatchObject({
      // An older svc's lock names no operation: whose input it is is not known.
      message: expect.stringMatching(/its input not known \(an older svc\); nothing was done$/),
      hint: `pass another --journal (one journal per operation), or wait for that run to finish; if it is gone, remove ${journal}.lock`,
    });
  });

  it('refuses --journal DIR, saying a journal is a file', async () => {
    const dir = dirs().SVC_STATE_DIR!;
    mkdirSync(dir, { recursive: true });
    const r = await run(verb(['ok'], { journal: dir }));
    expect(r.code).toBe(2);
    expect(r.error).toMatchObject({
      message: `--journal ${dir} is a directory; the journal is a file`,
      hint: `give a file path, e.g. --journal ${join(dir, 'svc-journal.ndjson')}`,
    });
  });

  it('refuses --journal DIR/ for a directory not made yet, before creating anything', async () => {
    const dir = join(dirs().SVC_STATE_DIR!, 'not-yet');
    const r = await run(verb(['ok'], { journal: `${dir}/` }));
    expect(r.code).toBe(2);
    expect(r.error).toMatchObject({
      message: `--journal ${dir}/ names a directory; the journal is a file`,
      hint: `give a file path, e.g. --journal ${join(dir, 'svc-journal.ndjson')}`,
    });
    expect(existsSync(dir)).toBe(false);
  });

  it('a dry run says it is checking, not doing, on its bar', async () => {
    const many = Array.from({ length: 30 }, () => 'ok');
    const { stderr } = await run(verb(many, { dryRun: true }), {
      tty: { stderr: true },
      env: { NO_COLOR: '1' },
    });
    expect(stderr).toContain('\r\u001b[2Kchecking (dry run)');
    expect(stderr).not.toContain('touching');
  });

  it("a resumed run of a verb whose done items leave its source starts with that run's start and counts; a dry run says it is one", async () => {
    const journal = join(dirs().SVC_STATE_DIR!, 'queue.ndjson');
    const first = await run(verb(['ok', 'fail'], { journal, identity: ['queue'] }));
    expect(first.code).toBe(7);
    // The done item left the source: only the failed one is left in it.
    const resumed = (dryRun: boolean) =>
      verb(['fail'], {
        journal,
        identity: ['queue'],
        dryRun,
        prepare: async () => 1,
        items: () => [{ key: 'k1', line: 3, data: 'ok' }],
        fromJournal: (key) => ({ key, data: 'ok' }),
        resumeNote: () => 'the queue may have changed since',
      });
    const start = '2026-01-15T12:00:00Z';
    // The first run finished with a failure (exit 7): this one takes up its failures (truth22 3).
    const said = `the run started at ${start} (it finished at ${start}): 1 done, 1 to do (journal ${journal}); the queue may have changed since\n`;
    const dry = await run(resumed(true));
    expect([dry.code, dry.stderr]).toEqual([
      0,
      `a dry run of taking up the failures of ${said}dry run: 1 would be touched, 1 would be skipped, 0 would fail; nothing was changed\n`,
    ]);
    expect(dry.stdout).toBe('\tk0\tskip\t\n3\tk1\ttouch\t\n');
    const real = await run(resumed(false));
    expect([real.code, real.stderr]).toEqual([
      0,
      `taking up the failures of ${said}✓ 1 touched, 1 skipped (0.0 s)\n`,
    ]);
    expect(existsSync(journal)).toBe(false);
  });
});
