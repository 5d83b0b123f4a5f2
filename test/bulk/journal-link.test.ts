import {
  chmodSync,
  chownSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';
import { tempDir, useTempDir } from '../helpers/temp.js';

// review17b R17b-2, R17b-1, R17b-6: in a sticky directory (/tmp) another user can put a link or a
// file where a --journal or the plan kept beside it goes. The journal was appended to through such a
// link into the user's own file (any empty one), and the kept plan's cleanup failed on it with a
// raw error ("this is a bug in svc"). Another user's link is refused before anything is written
// (journal_owner, one line), and another user's file there names a fix that works in a sticky
// directory: another --journal (the user cannot `rm` it there). Needs root to give a link away.
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const dir = useTempDir('svc-journal-link-', (made) => chmodSync(made, 0o1777));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const now = () => Date.parse('2026-01-01T00:00:00Z');
const OTHER = 4242;

/** A link `name` in the sticky directory to `target`, made by another user (uid 4242). */
function plantedLink(name: string, target: string): string {
  const path = join(dir, name);
  symlinkSync(target, path);
  lchownSync(path, OTHER, OTHER);
  return path;
}

describe.skipIf(!root)('a journal in a sticky directory, where another user can put things', () => {
  it("another user's link where the journal goes is refused before anything is written through it", () => {
    const victim = join(dir, 'victim-empty.log');
    writeFileSync(victim, '');
    const path = plantedLink('j1.jsonl', victim);
    expect(() => Journal.load(path, 'op', now)).toThrow(
      `journal ${path} is a symbolic link another user (uid ${OTHER}) made, so svc will not resume it`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('');
  });

  it("a new run's journal is made new: a link put there after svc looked is not written through", () => {
    const victim = join(dir, 'victim-late.log');
    writeFileSync(victim, '');
    const path = join(dir, 'j2.jsonl');
    const journal = Journal.load(path, 'op', now);
    plantedLink('j2.jsonl', victim);
    expect(() => journal.start()).toThrow(
      `the journal ${path} was made after svc looked for it (someone else made it), so svc will not record this run in it`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('');
    // The link is theirs: left where it is (fix-files18 #2).
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
  });

  it("another user's link where the kept plan goes is refused, one line, and left alone", () => {
    const victim = join(dir, 'victim-plan.json');
    writeFileSync(victim, 'mine\n');
    const path = join(dir, 'j3.jsonl');
    const kept = plantedLink('j3.jsonl.plan.json', victim);
    const journal = Journal.load(path, 'op', now);
    expect(() => journal.keepBeside('.plan.json', ['{}\n'])).toThrow(
      `the plan kept beside journal ${path}, ${kept}, is a symbolic link another user (uid ${OTHER}) made, so svc will not write or read it`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('mine\n');
  });

  // fix-files18 #4: the hint said `cat LINK`, which follows another user's link (to a named pipe
  // it hangs, to /dev/zero it never ends, to a file of theirs it shows what they chose). `ls -l`
  // shows the link and where it points, without following it.
  it("another user's link: the hint shows where it points (ls -l), never follows it (cat)", () => {
    const path = plantedLink('j5.jsonl', '/dev/zero');
    let hint: string | undefined;
    try {
      Journal.load(path, 'op', now);
    } catch (error) {
      hint = (error as { hint?: string }).hint;
    }
    expect(hint).toBe(
      `see where it points with \`ls -l ${path}\`; if you did not put it there, remove it (\`rm ${path}\`) and run the command again; svc changed nothing`,
    );
  });

  it("another user's file where the kept plan goes: the fix is another --journal, not rm", () => {
    // A sticky directory of someone else's, as /tmp is root's for a user (here root plays the user).
    const shared = join(dir, 'shared');
    mkdirSync(shared, { mode: 0o1777 });
    chmodSync(shared, 0o1777);
    chownSync(shared, OTHER + 1, OTHER + 1);
    const path = join(shared, 'j4.jsonl');
    const kept = join(shared, 'j4.jsonl.plan.json');
    writeFileSync(kept, '{}\n');
    chownSync(kept, OTHER, OTHER);
    let hint: string | undefined;
    try {
      Journal.load(path, 'op', now).keepBeside('.plan.json', ['{}\n']);
    } catch (error) {
      hint = (error as { hint?: string }).hint;
    }
    expect(hint).toBe(
      `see what it holds with \`cat ${kept}\`; it is another user's: pass another --journal (in a directory only you can write) and run the command again; svc changed nothing`,
    );
  });
});

// fix-store18 #4: a journal link of the user's own to a file of theirs was followed whatever the
// directories above the target: one others can write lets them swap the journal under the link.
describe.skipIf(process.platform === 'win32')(
  'a journal link whose target is in a directory others can write',
  () => {
    it('is refused, one line naming that directory and the fix; nothing written', () => {
      const own = tempDir('svc-journal-target-');
      try {
        const open = join(own, 'open');
        mkdirSync(open);
        chmodSync(open, 0o777);
        const target = join(open, 'run.jsonl');
        writeFileSync(target, '');
        const path = join(own, 'j.jsonl');
        symlinkSync(target, path);
        let said = '';
        try {
          Journal.load(path, 'op', now);
        } catch (error) {
          said = `${(error as Error).message}; ${(error as { hint?: string }).hint}`;
        }
        expect(said).toBe(
          `journal ${path} is a symbolic link to ${target}, which is in ${open}, which others can write (mode 0777), so svc will not resume it; see where it points with \`ls -l ${path}\`; check what is in it, then \`chmod go-w ${open}\`, or remove the link (\`rm ${path}\`) and run the command again; svc changed nothing`,
        );
        expect(readFileSync(target, 'utf8')).toBe('');
      } finally {
        rmSync(own, { recursive: true, force: true });
      }
    });
  },
);
