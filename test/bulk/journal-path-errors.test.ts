/**
 * A --journal path svc cannot use is refused in one line naming the path, the reason in words and
 * the fix, exit 2, before anything is locked, written or sent (closing12-s24: Node's own text,
 * `ENAMETOOLONG: name too long, lstat '…'`, with the path twice; a named pipe waited for ever).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { realJournalDisk } from '../../src/bulk/journal-disk.js';
import { runVerb, testVerb } from '../helpers/bulk-verb.js';
import { useTempDirs, type VerbOptions } from '../helpers/context.js';

const dirs = useTempDirs();

/** Runs the test verb with `journal`, real and dry: both refused alike, and no item worked. */
async function refused(journal: string, options: VerbOptions = {}) {
  const seen: unknown[] = [];
  for (const dryRun of [false, true]) {
    let worked = 0;
    const verb = testVerb(['ok'], {
      journal,
      dryRun,
      work: async () => {
        worked++;
        return {};
      },
      plan: async () => {
        worked++;
        return {};
      },
    });
    const r = await runVerb(dirs, verb, options);
    expect([r.code, r.stdout, r.stderr, worked]).toEqual([2, '', '', 0]);
    const { message, hint } = r.error as { message: string; hint: string };
    seen.push({ message, hint });
  }
  expect(seen[1]).toEqual(seen[0]);
  return seen[0];
}

/** A directory of the test's own. */
const base = () => {
  mkdirSync(dirs().SVC_STATE_DIR!, { recursive: true });
  return mkdtempSync(join(dirs().SVC_STATE_DIR!, 'here-'));
};

describe('--journal a path svc cannot use', () => {
  it('under a file: says a part of the path is a file, and makes nothing', async () => {
    const dir = base();
    writeFileSync(join(dir, 'afile'), 'x');
    const journal = join(dir, 'afile', 'j.ndjson');
    expect(await refused(journal)).toEqual({
      message: `cannot use --journal ${journal}: a part of its path is a file, not a directory`,
      hint: 'pass --journal PATH in a directory that exists or can be made, or set SVC_STATE_DIR; svc changed nothing',
    });
    expect(readdirSync(dir)).toEqual(['afile']);
  });

  it('a name too long, or a path too long: the path once and "name too long", no lstat', async () => {
    const dir = base();
    const name = join(dir, 'x'.repeat(300));
    const deep = join(dir, `${'y'.repeat(200)}/`.repeat(25), 'j.ndjson');
    for (const journal of [name, deep]) {
      expect(await refused(journal)).toEqual({
        message: `cannot use --journal ${journal}: name too long`,
        hint: 'give a shorter --journal path; svc changed nothing',
      });
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a named pipe is refused before it is read (reading it waited for ever)', async () => {
    const dir = base();
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(await refused(fifo)).toEqual({
      message: `--journal ${fifo} is a named pipe (FIFO); the journal is a file`,
      hint: `give a file path, e.g. --journal ${join(dir, 'svc-journal.ndjson')}; svc changed nothing`,
    });
    expect(readdirSync(dir)).toEqual(['pipe']);
  });

  it('a device is refused as such, not with "chmod 600 /dev/null"', async () => {
    expect(await refused('/dev/null')).toEqual({
      message: '--journal /dev/null is a device; the journal is a file',
      hint: 'give a file path, e.g. --journal /dev/svc-journal.ndjson; svc changed nothing',
    });
  });

  it('a directory where the lock cannot be made (permission denied): the reason in words', async () => {
    const dir = base();
    const journal = join(dir, 'j.ndjson');
    const denied = Object.assign(new Error(`EACCES: permission denied, open '${journal}.lock'`), {
      code: 'EACCES',
    });
    const disk = {
      ...realJournalDisk,
      open: () => {
        throw denied;
      },
    };
    let worked = 0;
    const verb = testVerb(['ok'], {
      journal,
      work: async () => {
        worked++;
        return {};
      },
    });
    const r = await runVerb(dirs, verb, { journalDisk: disk });
    expect([r.code, worked, existsSync(journal)]).toEqual([2, 0, false]);
    expect(r.error).toMatchObject({
      message: `cannot lock journal ${journal}: permission denied`,
      hint: 'pass --journal PATH in a writable directory, or set SVC_STATE_DIR; svc changed nothing',
    });
  });
});
