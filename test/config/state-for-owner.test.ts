/**
 * fix-files19 #4: run as root for the owner of $HOME (`sudo -E svc …`, a CI container whose HOME
 * the runner's uid owns), the journals svc makes in their state directory (with the directories,
 * the lock and the plan kept beside) and the config store's lock were root's, 0600/0700: the
 * user's own next run could not read, resume or take them over; so were the records of what a
 * --secret-file waits for. They are given to that owner, as
 * the store's credentials are since session 18 (config/store-directory.ts, heirOf); what root
 * makes in a directory of its own stays root's.
 */
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';
import { defaultJournalPath } from '../../src/bulk/journal-path.js';
import { lockJournal } from '../../src/bulk/lock.js';
import { withFileLock } from '../../src/config/lock.js';
import { heirOf } from '../../src/config/store-directory.js';
import { recordPath, SecretFile } from '../../src/system/secret-file.js';
import { USER } from '../helpers/other-user.js';
import { useTempDir } from '../helpers/temp.js';

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const top = useTempDir('svc-journal-owner-', (made) => chmodSync(made, 0o755));
afterAll(() => rmSync(top, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});
const now = () => Date.parse('2026-01-01T00:00:00Z');
const owners = (paths: string[]) => paths.map((path) => [path, statSync(path).uid]);

/** A home of uid 4242's, $HOME for the run (as `sudo -E` leaves it). */
function userHome(): string {
  const home = mkdtempSync(join(top, 'home-'));
  chmodSync(home, 0o755);
  chownSync(home, USER, USER);
  vi.stubEnv('HOME', home);
  return home;
}

/** A journal started at `path` with the plan kept beside it, under its lock: what a run made. */
async function journalAt(path: string): Promise<number[]> {
  const release = await lockJournal(path, { command: 'apply', operation: 'x' }, now());
  const journal = Journal.load(path, 'op', now);
  journal.keepBeside('.plan.json', ['{"changes":[]}\n']);
  journal.start();
  const owned = [path, `${path}.plan.json`, `${path}.lock`].map((made) => statSync(made).uid);
  release();
  return owned;
}

if (!root) console.warn('skipped: journals root makes for $HOME’s owner: not run as root');

describe.skipIf(!root)('root running for $HOME’s owner (sudo -E svc …)', () => {
  it('gives a journal it makes in their state directory, its directories, lock and kept plan to them', async () => {
    const home = userHome();
    const path = defaultJournalPath({ HOME: home }, 'apply', '0123456789abcdef');
    expect(path).toBe(join(home, '.local', 'state', 'svc', 'journals', 'apply-0123456789abcdef.ndjson'));
    expect(await journalAt(path)).toEqual([USER, USER, USER]);
    const made = ['.local', '.local/state', '.local/state/svc', '.local/state/svc/journals'].map((dir) =>
      join(home, dir),
    );
    expect(owners(made)).toEqual(made.map((dir) => [dir, USER]));
  });

  it('keeps a journal in a directory of its own (--journal outside the home) root’s', async () => {
    userHome();
    const own = mkdtempSync(join(top, 'root-'));
    expect(await journalAt(join(own, 'journals', 'j.ndjson'))).toEqual([0, 0, 0]);
  });

  it('gives the config store’s lock and its pid file to them while it holds it', async () => {
    const home = userHome();
    const store = join(home, '.config', 'svc');
    const target = join(store, 'credentials.json');
    const held = await withFileLock(store, target, async () =>
      owners([`${target}.lock`, `${target}.lock-pid`]),
    );
    expect(held).toEqual([
      [`${target}.lock`, USER],
      [`${target}.lock-pid`, USER],
    ]);
  });

  it('gives the record of what a --secret-file waits for, and its directories, to them', async () => {
    const home = userHome();
    const records = join(home, '.local', 'state', 'svc', 'secret-files');
    const file = await SecretFile.create(join(home, 'key.secret'), '--secret-file', {
      records,
      key: 'k-1',
      made: 'an API key of acme-treasury',
      find: 'see it in: svc tenants api-keys ls acme-treasury',
      rerun: 'the same command with --idempotency-key k-1',
      heir: heirOf,
    });
    const [record] = readdirSync(records);
    const made = ['.local', '.local/state', '.local/state/svc', '.local/state/svc/secret-files'].map((dir) =>
      join(home, dir),
    );
    expect(owners([...made, join(records, record!)])).toEqual(
      [...made, join(records, record!)].map((path) => [path, USER]),
    );
    await file.discard();
  });

  // review19c F1, F2: the owner can plant a link where root is about to write for them; root
  // must neither write through it nor give its target away.
  /** A root-owned 0644 file of root's own, outside the home: what a planted link would point at. */
  function victim(): string {
    const path = join(mkdtempSync(join(top, 'roots-')), 'victim');
    writeFileSync(path, 'root data\n', { mode: 0o644 });
    return path;
  }
  const untouched = (path: string) => [readFileSync(path, 'utf8'), statSync(path).uid];

  it('writes the lock’s pid file through no link the owner planted', async () => {
    const home = userHome();
    const store = join(home, '.config', 'svc');
    mkdirSync(store, { recursive: true, mode: 0o700 });
    chownSync(join(home, '.config'), USER, USER);
    chownSync(store, USER, USER);
    const target = join(store, 'config.json');
    const prey = victim();
    symlinkSync(prey, `${target}.lock-pid`);
    await withFileLock(store, target, async () => undefined);
    expect(untouched(prey)).toEqual(['root data\n', 0]);
  });

  it('writes the record of a --secret-file through no link the owner planted', async () => {
    const home = userHome();
    const records = join(home, '.local', 'state', 'svc', 'secret-files');
    const path = join(home, 'key.secret');
    mkdirSync(records, { recursive: true, mode: 0o700 });
    for (const dir of ['.local', '.local/state', '.local/state/svc', '.local/state/svc/secret-files'])
      chownSync(join(home, dir), USER, USER);
    const prey = victim();
    symlinkSync(prey, recordPath(records, path));
    const file = await SecretFile.create(path, '--secret-file', {
      records,
      key: 'k-2',
      made: 'an API key of acme-treasury',
      find: 'see it in: svc tenants api-keys ls acme-treasury',
      rerun: 'the same command with --idempotency-key k-2',
      heir: heirOf,
    });
    expect(untouched(prey)).toEqual(['root data\n', 0]);
    await file.discard();
  });
});
