import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { earlierInputsRun } from '../../src/bulk/caller.js';
import { Journal, type RunOwner } from '../../src/bulk/journal.js';
import { useTempDir } from '../helpers/temp.js';

// Versions sharing a home (README, RELIABILITY): a journal's header gained `family` (session 26,
// attack25a F10). The reader is one (Journal.load): an svc before it reads the header's fields it
// knows and no other, as an owner without `family` here does. Both directions resume the run;
// a journal without `family` is never named by the earlier-input note.
const dir = useTempDir('svc-journal-family-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const now = () => Date.parse('2026-11-26T10:00:00Z');

const older: RunOwner = { operation: 'op-a', command: 'cmd-a', by: 'usr_admin, profile "default"' };
const newer: RunOwner = { ...older, family: 'fam-1' };
const header = (path: string) => JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!);

describe('a journal header with and without family', () => {
  it('a newer svc’s journal (with family) is resumed by an older svc as its own run', () => {
    const path = join(dir, 'roles-assign-newer.ndjson');
    const written = Journal.load(path, newer, now);
    written.start();
    expect(header(path)).toMatchObject({ journal: 3, operation: 'op-a', command: 'cmd-a', family: 'fam-1' });
    const read = Journal.load(path, older, now);
    expect(read.run).toEqual({ ...written.run, resumed: true });
  });

  it('an older svc’s journal (no family) is resumed by a newer svc, and never named as an earlier input', () => {
    const here = mkdtempSync(join(dir, 'both-'));
    const path = join(here, 'roles-assign-older.ndjson');
    Journal.load(path, older, now).start();
    expect(header(path)).not.toHaveProperty('family');
    expect(Journal.load(path, newer, now).run.resumed).toBe(true);
    // Another input's run by the same caller: the newer journal is named, the older one is not.
    const other = { ...newer, operation: 'op-b' };
    expect(earlierInputsRun(here, 'roles-assign', other, join(here, 'x'))).toBe(undefined);
    const named = join(here, 'roles-assign-newer.ndjson');
    Journal.load(named, newer, now).start();
    expect(earlierInputsRun(here, 'roles-assign', other, join(here, 'x'))).toBe(
      `note: an earlier unfinished roles assign run of yours started at 2026-11-26T10:00:00Z, against this server and tenant but of another input or other flags, is in ${named}; to resume it, run the same command again with its input and flags as they were, or remove it (\`rm ${named}\`)`,
    );
  });

  it('a family of another type in a header (a hand edit) is no match', () => {
    const here = mkdtempSync(join(dir, 'odd-'));
    const path = join(here, 'roles-assign-odd.ndjson');
    writeFileSync(path, `${JSON.stringify({ journal: 3, operation: 'op-c', family: ['fam-1'] })}\n`);
    expect(earlierInputsRun(here, 'roles-assign', { ...newer, operation: 'op-b' }, join(here, 'x'))).toBe(
      undefined,
    );
  });
});
