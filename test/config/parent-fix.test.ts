/**
 * review17b R17b-4: a directory above svc's files that another user owns (0755: nobody else can
 * write it) was refused with "ask its owner to close it to others", which changes nothing; that
 * fix is kept for a root-owned directory others can write. Giving a directory away needs root.
 */
import { chmodSync, chownSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { refuseUnsafeJournalDirectory } from '../../src/bulk/journal.js';
import { tempDir } from '../helpers/temp.js';

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const parent = (mode: number, owner: number) => {
  const top = tempDir('svc-parent-');
  made.push(top);
  const dir = join(top, 'p');
  mkdirSync(dir);
  chmodSync(dir, mode);
  chownSync(dir, owner, owner);
  return dir;
};
const refusal = (journal: string) => {
  try {
    refuseUnsafeJournalDirectory(journal);
  } catch (error) {
    return `${(error as Error).message}; ${(error as { hint?: string }).hint}`;
  }
  return 'accepted';
};

describe.skipIf(!root)('the fix for a directory above a --journal fits its case', () => {
  it('another user’s directory, closed to others: take it if it is yours, or go elsewhere', () => {
    const dir = parent(0o755, 65534);
    expect(refusal(join(dir, 'j.jsonl'))).toBe(
      `--journal ${join(dir, 'j.jsonl')} is in ${dir}, which belongs to another user (uid 65534), so svc will not resume or record a run in it; \`chown\` it to you if it is yours to take, or give a --journal in a directory only you can write; svc changed nothing`,
    );
  });

  it('a directory of root’s others can write: ask its owner to close it to others', () => {
    const dir = parent(0o777, 0);
    const { getuid } = process;
    process.getuid = () => 65534; // the user is not root: the directory is root's, not theirs
    try {
      expect(refusal(join(dir, 'j.jsonl'))).toBe(
        `--journal ${join(dir, 'j.jsonl')} is in ${dir}, which others can write (mode 0777), so svc will not resume or record a run in it; ask its owner to close it to others, or give a --journal in a directory only you can write; svc changed nothing`,
      );
    } finally {
      process.getuid = getuid;
    }
  });
});
