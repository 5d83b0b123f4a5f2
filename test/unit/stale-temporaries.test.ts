/**
 * fix-files18 #1: a write killed before its rename (kill -9, a power cut) leaves its temp file
 * beside the path, 0600, holding what was being written (a plan kept beside a journal, an export).
 * The next write of that path removes those of writers that are gone and that the user owns, as
 * the config store does (one rule: removeStaleTemporaries, src/system/output-file.ts); a running
 * writer's, and another user's, stay.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';
import { writeFileWhole } from '../../src/system/user-output-file.js';

const root = process.getuid?.() === 0;
const dir = mkdtempSync(join(tmpdir(), 'svc-stale-temps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const now = () => Date.parse('2026-01-01T00:00:00Z');
const PLAN = '{"changes":["grant tenant_admin"]}\n';

/** A directory of its own with these files in it (0600, the plan in each). */
function planted(name: string, files: string[]): string {
  const at = mkdtempSync(join(dir, `${name}-`));
  for (const file of files) writeFileSync(join(at, file), PLAN, { mode: 0o600 });
  return at;
}

describe.skipIf(process.platform === 'win32')('temp files a killed write left', () => {
  it('the plan kept beside a journal: the next keepBeside removes a gone writer’s; a running one’s stays', () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const stale = `.j.ndjson.plan.json.${dead}-0123456789ab`;
    const live = `.j.ndjson.plan.json.${process.ppid}-0123456789ab`;
    const at = planted('journal', [stale, live]);
    Journal.load(join(at, 'j.ndjson'), 'op', now).keepBeside('.plan.json', [PLAN]);
    expect(readdirSync(at).sort()).toEqual([live, 'j.ndjson.plan.json'].sort());
  });

  it('a file written whole (export -o, plan --out): its temp is named for its writer, and a gone one’s is removed', () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const stale = `.out.yaml.${dead}-0123456789ab`;
    const live = `.out.yaml.${process.ppid}-0123456789ab`;
    const at = planted('export', [stale, live]);
    expect(writeFileWhole(join(at, 'out.yaml'), 'kind: access\n', '-o')).toBe(true);
    expect(readdirSync(at).sort()).toEqual([live, 'out.yaml'].sort());
  });

  it.skipIf(!root)('another user’s file of that name is left as it is', () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const theirs = `.out.yaml.${dead}-ba9876543210`;
    const at = planted('theirs', [theirs]);
    chownSync(join(at, theirs), 65534, 65534);
    writeFileWhole(join(at, 'out.yaml'), 'kind: access\n', '-o');
    expect(readdirSync(at).sort()).toEqual([theirs, 'out.yaml'].sort());
  });
});

// fix-files19 #2: before session 18, writeFileWhole named its temp `PATH.HEX.tmp` (no pid, no
// leading dot), so whether its writer still runs cannot be told; such a file an hour old (by its
// mtime) is a killed write's, a younger one may be a write still going on.
describe.skipIf(process.platform === 'win32')(
  'temp files an older svc’s killed write left (PATH.HEX.tmp)',
  () => {
    it('the next write of that path removes one older than an hour; a younger one, and other names, stay', () => {
      const old = 'out.yaml.0123456789ab.tmp';
      const young = 'out.yaml.ba9876543210.tmp';
      const others = [
        'out.yaml.0123456789a.tmp',
        'out.yaml.0123456789ab.tmp.bak',
        'other.yaml.0123456789ab.tmp',
      ];
      const at = planted('old-names', [old, young, ...others]);
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      utimesSync(join(at, old), twoHoursAgo, twoHoursAgo);
      for (const other of others) utimesSync(join(at, other), twoHoursAgo, twoHoursAgo);
      expect(writeFileWhole(join(at, 'out.yaml'), 'kind: access\n', '-o')).toBe(true);
      expect(readdirSync(at).sort()).toEqual([young, 'out.yaml', ...others].sort());
    });

    it.skipIf(!root)('another user’s old one is left as it is', () => {
      const theirs = 'out.yaml.0123456789ab.tmp';
      const at = planted('old-theirs', [theirs]);
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      utimesSync(join(at, theirs), twoHoursAgo, twoHoursAgo);
      chownSync(join(at, theirs), 65534, 65534);
      writeFileWhole(join(at, 'out.yaml'), 'kind: access\n', '-o');
      expect(readdirSync(at).sort()).toEqual([theirs, 'out.yaml'].sort());
    });
  },
);
