import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { WATCH_MS } from '../../src/bulk/lock.js';
import { ACME, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { adminGrant, useSandbox } from '../helpers/sandbox.js';
import { cutReplayRun, journalFiles } from '../helpers/webhooks.js';

// A bulk run's journal belongs to its caller (s16). A run started with one credential and left
// unfinished was "resumed" by the same command under another credential: the second caller was
// told it resumed, its rows skipped as done `journal` by this run, which they were not (and which
// hid whether the second caller may make them at all). Now the second caller's run is a new one
// of its own, with one line naming the other caller's journal, which stays for its caller.
const sandbox = useSandbox({ users: 40 });
const svc = bulkRunner(sandbox);
/** A second tenant admin of Acme Treasury: another user, another credential. */
const OTHER = bulkUser(40);
let other: Record<string, string>;
beforeAll(async () => {
  await adminGrant(sandbox(), ACME, OTHER, 'tenant_admin');
  other = { SVC_TOKEN: sandbox().issueToken(OTHER, { expiresInSeconds: 86_400 }).token };
});

let files = 0;
/** A file over users `from`…`from + 2` and a user that does not exist: the run ends unfinished (exit 7). */
async function unfinished(kind: 'assign' | 'revoke', from: number) {
  const name = `caller-${kind}-${++files}`;
  await customRole(sandbox(), name);
  const users = [bulkUser(from), bulkUser(from + 1), bulkUser(from + 2)];
  const body = [...users, 'usr_ghost'].map((u) => `${u},${name},8h,j`).join('\n');
  const path = svc.file(`${name}.csv`, `user,role,expires_in,justification\n${body}\n`);
  if (kind === 'revoke') {
    const setup = await svc.run([
      'roles',
      'assign',
      '--file',
      svc.file(`${name}-held.csv`, `user,role\n${users.map((u) => `${u},${name}`).join('\n')}\n`),
      '--expires-in',
      '8h',
      '--justification',
      'setup',
    ]);
    expect(setup.code, setup.stderr).toBe(0);
  }
  const argv = [
    'roles',
    kind,
    '--file',
    path,
    '--ndjson',
    '--concurrency',
    '1',
    ...(kind === 'revoke' ? ['--yes'] : []),
  ];
  const before = new Set(journalFiles(svc.journals));
  const first = await svc.run(argv);
  expect(first.code, first.stderr).toBe(7);
  const [journal] = journalFiles(svc.journals).filter((f) => !before.has(f));
  return { argv, journal: join(svc.journals, journal!) };
}

/** Rewrites `journal` as svc wrote it before s16: version 2, the command's hash as its operation, its name from it. */
function asEarlierSvcWrote(journal: string): string {
  const [first, ...rest] = readFileSync(journal, 'utf8').split('\n');
  const { command, by: _by, operation: _op, ...header } = JSON.parse(first!);
  const legacy = join(svc.journals, `roles-assign-${command.slice(0, 16)}.ndjson`);
  writeFileSync(journal, [JSON.stringify({ ...header, journal: 2, operation: command }), ...rest].join('\n'));
  renameSync(journal, legacy);
  return legacy;
}

describe('a bulk run is resumed only by the caller who started it', () => {
  it.each(['assign', 'revoke'] as const)(
    'roles %s --file: another credential makes a new run of its own, naming the unfinished one; its caller still resumes it',
    async (kind) => {
      const { argv, journal } = await unfinished(kind, kind === 'assign' ? 1 : 10);
      const started = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!).started_at;

      const theirs = await svc.run(argv, { env: other });
      const rows = ndjson(theirs.stdout);
      // Nothing is claimed from the other caller's journal: the platform's answers to this caller.
      expect(rows.map((r) => r.reason ?? null)).not.toContain('journal');
      expect(rows.map((r) => [r.line, r.status])).toEqual([
        [2, 'skipped'],
        [3, 'skipped'],
        [4, 'skipped'],
        [5, 'failed'],
      ]);
      expect(theirs.stderr.split('\n')[0]).toBe(
        `note: another caller's unfinished run of this command started at ${started} by usr_admin, profile "default", SVC_TOKEN is in ${journal}; this is a new run of your own, which leaves that one to its caller (see it with \`cat ${journal}\`)`,
      );
      // The other caller's journal is left as it was, and its caller resumes it.
      const mine = await svc.run(argv);
      expect(ndjson(mine.stdout).map((r) => [r.line, r.status, r.reason ?? null])).toEqual([
        [2, 'skipped', 'journal'],
        [3, 'skipped', 'journal'],
        [4, 'skipped', 'journal'],
        [5, 'failed', null],
      ]);
      // No credential is written in a journal or its name.
      for (const name of journalFiles(svc.journals)) {
        const text = `${name}\n${readFileSync(join(svc.journals, name), 'utf8')}`;
        expect(text).not.toContain(other.SVC_TOKEN!);
        expect(text).not.toContain(sandbox().adminToken);
      }
    },
  );

  it('webhooks replay --dlq: another credential does not resume a cut replay run', async () => {
    const cut = await cutReplayRun(sandbox(), svc);
    const theirs = await svc.run([...cut.argv, '--ndjson'], { env: other });
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(theirs.stderr).not.toMatch(/resuming/);
    expect(theirs.stderr.split('\n')[0]).toMatch(/^note: another caller's unfinished run of this command/);
    // Only the entry still queued is this run's: the one the other run replayed is not claimed.
    expect(ndjson(theirs.stdout).map((r) => [r.dlq_entry_id, r.status])).toEqual([[cut.e2.id, 'ok']]);
  });

  it("--journal naming another caller's journal is refused, exit 2, nothing sent", async () => {
    const { argv, journal } = await unfinished('assign', 20);
    const r = await svc.run([...argv, '--journal', journal], { env: other });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'journal_other_caller',
      message: `journal ${journal} holds another caller's run of this command (usr_admin, profile "default", SVC_TOKEN): a run is resumed only by the caller who started it`,
    });
  });

  it('a journal an earlier svc wrote (no caller recorded) is refused with what to do, not resumed nor left without a word', async () => {
    const { argv, journal } = await unfinished('assign', 25);
    const legacy = asEarlierSvcWrote(journal);
    for (const env of [{}, other]) {
      const r = await svc.run(argv, { env });
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(JSON.parse(r.stderr).error).toMatchObject({
        code: 'journal_caller_unknown',
        message: `journal ${legacy} holds a run of this command that an earlier svc started without recording who ran it, so svc cannot resume it as yours`,
        hint: `see what it did with \`cat ${legacy}\`; to start a run of your own, remove it (\`rm ${legacy}\`) and run the command again`,
      });
    }
  });

  // review23e H1: with --journal the run locks the journal before reading it, and took its own
  // lock for an earlier svc's running run (exit 6 naming its own pid, on every retry).
  it.each([[[]], [['--dry-run']]])(
    "--journal at an earlier svc's journal (%j) is refused as the run without --journal is, exit 2, not as its own lock",
    async (extra) => {
      const { argv, journal } = await unfinished('assign', 35 + extra.length * 5);
      const legacy = asEarlierSvcWrote(journal);
      const named = join(svc.journals, `named-${extra.length}.ndjson`);
      renameSync(legacy, named);
      const r = await svc.run([...argv, '--journal', named, ...extra]);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(JSON.parse(r.stderr).error).toMatchObject({
        code: 'journal_caller_unknown',
        message: `journal ${named} holds a run of this command that an earlier svc started without recording who ran it, so svc cannot resume it as yours`,
      });
      expect(existsSync(`${named}.lock`)).toBe(false);
    },
  );

  // review23f L2: a lock that names its operation is a current svc's (another caller's run of this
  // command, which takes the older path's lock too), never an earlier svc's: the journal is refused
  // as one an earlier svc left (exit 2), not as an earlier svc's running run (exit 6 naming a pid
  // that is no earlier svc), and the lock is left as it was.
  it("an earlier svc's journal whose lock a current svc's live run holds: exit 2, the lock left", async () => {
    const { argv, journal } = await unfinished('assign', 45);
    const legacy = asEarlierSvcWrote(journal);
    const holder = spawn('sleep', ['300'], { stdio: 'ignore' });
    const lock = JSON.stringify({
      pid: holder.pid!,
      host: hostname(),
      since: new Date(Date.now() + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      beat: 5,
      command: 'roles assign',
      operation: 'another-callers-operation',
    });
    writeFileSync(`${legacy}.lock`, lock);
    try {
      const r = await svc.run(argv);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(JSON.parse(r.stderr).error).toMatchObject({
        code: 'journal_caller_unknown',
        message: `journal ${legacy} holds a run of this command that an earlier svc started without recording who ran it, so svc cannot resume it as yours`,
      });
      expect(readFileSync(`${legacy}.lock`, 'utf8')).toBe(lock);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((done) => holder.once('exit', done));
    }
  });

  // s23's closing note: an earlier svc's journal whose lock is empty (its maker killed between
  // making and writing it): the dry run said exit 6 "its lock unreadable" where the real run, which
  // watched that lock and took it over, said exit 2. Both watch it (one wait, said), then exit 2.
  // Rewritten during the wait and still unreadable (`{"pid":12`), both watch it again, then exit 2
  // (review24b M2: the dry run watched once and said exit 6, the real run twice and said exit 2).
  it.each([
    ['', [], false],
    ['', ['--dry-run'], false],
    ['--journal', [], false],
    ['--journal', ['--dry-run'], false],
    ['', [], true],
    ['', ['--dry-run'], true],
    ['--journal', [], true],
    ['--journal', ['--dry-run'], true],
  ])(
    "an earlier svc's journal whose lock is empty (%s %j, rewritten torn meanwhile: %s): watched, then exit 2 as with no lock",
    async (named, extra, rewritten) => {
      const from = 50 + extra.length * 3 + (named ? 6 : 0) + (rewritten ? 12 : 0);
      const { argv, journal } = await unfinished('assign', from);
      let legacy = asEarlierSvcWrote(journal);
      if (named) {
        const moved = join(svc.journals, `empty-lock-${extra.length}-${rewritten}.ndjson`);
        renameSync(legacy, moved);
        legacy = moved;
      }
      writeFileSync(`${legacy}.lock`, '');
      const waits: number[] = [];
      const clock = {
        now: () => Date.now(),
        sleep: async (ms: number) => {
          if (rewritten && waits.length === 0) writeFileSync(`${legacy}.lock`, '{"pid":12');
          waits.push(ms);
        },
      };
      const r = await svc.run([...argv, ...(named ? ['--journal', legacy] : []), ...extra], { clock });
      expect([r.code, r.stdout], r.stderr).toEqual([2, '']);
      const lines = r.stderr.trimEnd().split('\n');
      const error = lines.pop();
      const said = `waiting ${WATCH_MS / 1000} s to see whether ${legacy}.lock, which cannot be read, is its maker's, still being written`;
      expect(lines).toEqual(rewritten ? [said, said] : [said]);
      expect(JSON.parse(error!).error).toMatchObject({
        code: 'journal_caller_unknown',
        message: `journal ${legacy} holds a run of this command that an earlier svc started without recording who ran it, so svc cannot resume it as yours`,
      });
      expect(waits).toEqual(rewritten ? [WATCH_MS, WATCH_MS] : [WATCH_MS]);
    },
  );

  // attack23b F1: the refusal above told the user to `rm` the journal of an earlier svc's run that
  // was still going (its lock naming a live pid); followed, two runs of one command went at once.
  it("an earlier svc's journal whose lock names a running process: wait for it, exit 6, never `rm`", async () => {
    const { argv, journal } = await unfinished('assign', 30);
    const legacy = asEarlierSvcWrote(journal);
    // The earlier svc's lock (pid, host, since) held by a live process, written after it started.
    const holder = spawn('sleep', ['300'], { stdio: 'ignore' });
    const pid = holder.pid!;
    const since = new Date(Date.now() + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    writeFileSync(`${legacy}.lock`, JSON.stringify({ pid, host: hostname(), since }));
    try {
      for (const extra of [[], ['--dry-run']]) {
        const r = await svc.run([...argv, ...extra]);
        expect([r.code, r.stdout]).toEqual([6, '']);
        const { error } = JSON.parse(r.stderr);
        expect(error).toMatchObject({
          code: 'journal_locked',
          message: `an earlier svc's run of this command is running (pid ${pid}, since ${since}; journal ${legacy}); nothing was done`,
          hint: `wait for it to finish, then run the command again; if pid ${pid} is not svc (the lock is an older svc's: it names the pid alone), remove ${legacy}.lock`,
        });
        expect(error.hint).not.toContain(`rm ${legacy}`);
      }
    } finally {
      holder.kill('SIGKILL');
      await new Promise((done) => holder.once('exit', done));
    }
    // Once its process is gone, the journal it left is refused as before (exit 2, see it, remove it).
    const after = await svc.run(argv);
    expect([after.code, JSON.parse(after.stderr).error.code]).toEqual([2, 'journal_caller_unknown']);
    expect(existsSync(legacy)).toBe(true);
  });
});
