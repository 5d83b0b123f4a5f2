/**
 * fix-files18 #1: a write killed before its rename (kill -9, a power cut) leaves its temp file
 * beside the path, 0600, holding what was being written (a plan kept beside a journal, an export).
 * The next write of that path removes those of writers that are gone and that the user owns, as
 * the config store does (one rule: removeStaleTemporaries, src/system/output-file.ts); a running
 * writer's, and another user's, stay.
 */
import {
  chownSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';
import { replaceWhole } from '../../src/system/output-file.js';
import { thisProcess } from '../../src/system/processes.js';
import { writeFileWhole } from '../../src/system/user-output-file.js';
import { endedPid } from '../helpers/ended-pid.js';
import { useTempDir } from '../helpers/temp.js';

const root = process.getuid?.() === 0;
const dir = useTempDir('svc-stale-temps-');
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
    const dead = endedPid();
    const stale = `.j.ndjson.plan.json.${dead}-0123456789ab`;
    const live = `.j.ndjson.plan.json.${process.ppid}-0123456789ab`;
    const at = planted('journal', [stale, live]);
    Journal.load(join(at, 'j.ndjson'), 'op', now).keepBeside('.plan.json', [PLAN]);
    expect(readdirSync(at).sort()).toEqual([live, 'j.ndjson.plan.json'].sort());
  });

  it('a file written whole (export -o, plan --out): its temp is named for its writer, and a gone one’s is removed', () => {
    const dead = endedPid();
    const stale = `.out.yaml.${dead}-0123456789ab`;
    const live = `.out.yaml.${process.ppid}-0123456789ab`;
    const at = planted('export', [stale, live]);
    expect(writeFileWhole(join(at, 'out.yaml'), 'kind: access\n', '-o')).toBe(true);
    expect(readdirSync(at).sort()).toEqual([live, 'out.yaml'].sort());
  });

  it.skipIf(!root)('another user’s file of that name is left as it is', () => {
    const dead = endedPid();
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

// locks22 #1: a temp file named by its writer's pid alone was removed when kill(PID, 0) found no
// such process: a second container sharing the directory (its own PID namespace, svc PID 1 there)
// had its write's temp removed under it; a pid another program got kept a credential copy for
// ever. The name now carries the writer's mark (pid, start, boot, PID namespace: judgeMark's).
const me = thisProcess();
const linux = me.boot !== undefined && me.pidns !== undefined && me.start !== undefined;
/** A mark's word as a writer with these parts would put it in its temp's name. */
const word = (parts: { pid?: number; start?: string; boot?: string; pidns?: string } = {}) => {
  const m = { ...me, ...parts };
  return `${m.pid}-${m.start}-${m.boot?.replaceAll('-', '').slice(0, 12)}-${/\[(\d+)\]/.exec(m.pidns ?? '')?.[1]}`;
};
const HOUR = 3600_000;
/** Sets a planted file's mtime `ms` before the file system's now (a file just made there). */
function aged(file: string, ms: number): void {
  const probe = join(dir, `probe-${process.pid}`);
  writeFileSync(probe, '');
  const at = new Date(statSync(probe).mtimeMs - ms);
  rmSync(probe);
  utimesSync(file, at, at);
}

describe.skipIf(!linux)('temp files of writers a pid alone cannot judge', () => {
  afterEach(() => vi.restoreAllMocks());

  it('the temp a write makes is named with its writer’s mark: pid, start, boot, PID namespace', () => {
    const at = planted('named', []);
    let seen: string[] = [];
    replaceWhole(join(at, 'credentials.json'), ['{}'], {
      mode: 0o600,
      check: () => (seen = readdirSync(at)),
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(new RegExp(`^\\.credentials\\.json\\.${word()}-[0-9a-f]{12}$`));
  });

  it('another PID namespace’s (a second container’s, its svc PID 1 or a pid not here): left while young, removed once an hour older than a file just made there', () => {
    const dead = endedPid();
    const other = 'pid:[4026599999]';
    const names = [1, dead].map((pid) => `.credentials.json.${word({ pid, pidns: other })}-0123456789ab`);
    const at = planted('container', names);
    replaceWhole(join(at, 'credentials.json'), ['{}'], { mode: 0o600 });
    expect(readdirSync(at).sort()).toEqual([...names, 'credentials.json'].sort());
    for (const name of names) aged(join(at, name), HOUR + 60_000);
    replaceWhole(join(at, 'credentials.json'), ['{}'], { mode: 0o600 });
    expect(readdirSync(at)).toEqual(['credentials.json']);
  });

  it('another boot’s (a machine of the same name on a shared home): aged by the file system’s clock, never this machine’s', () => {
    const dead = endedPid();
    const young = `.credentials.json.${word({ pid: dead, boot: '00000000-0000-4000-8000-000000000000' })}-0123456789ab`;
    const at = planted('boot', [young]);
    // This machine's clock two hours ahead of the share's: the temp is still a minute old there.
    const ahead = Date.now() + 2 * HOUR;
    vi.spyOn(Date, 'now').mockReturnValue(ahead);
    replaceWhole(join(at, 'credentials.json'), ['{}'], { mode: 0o600 });
    expect(readdirSync(at).sort()).toEqual([young, 'credentials.json'].sort());
    aged(join(at, young), HOUR + 60_000);
    vi.restoreAllMocks();
    replaceWhole(join(at, 'credentials.json'), ['{}'], { mode: 0o600 });
    expect(readdirSync(at)).toEqual(['credentials.json']);
  });

  it('a pid another process got (its start is not the writer’s) is no writer: its temp is removed, in either name', () => {
    const reused = `.credentials.json.${word({ pid: process.ppid, start: '1' })}-0123456789ab`;
    const older = `.credentials.json.${process.ppid}-0123456789ab`;
    const live = `.credentials.json.${word({ pid: process.ppid, start: readFileSync(`/proc/${process.ppid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]! })}-0123456789ab`;
    const at = planted('reused', [reused, older, live]);
    // The older name (pid alone) written long before that pid's process started: not its writer.
    aged(join(at, older), 24 * HOUR);
    replaceWhole(join(at, 'credentials.json'), ['{}'], { mode: 0o600 });
    expect(readdirSync(at).sort()).toEqual([live, 'credentials.json'].sort());
  });

  it('a writer whose temp another process removed before its rename says so, and replaces nothing', () => {
    const at = planted('vanished', []);
    const path = join(at, 'out.yaml');
    writeFileSync(path, 'kind: before\n');
    const gone = () => {
      for (const name of readdirSync(at)) if (name.startsWith('.out.yaml.')) rmSync(join(at, name));
    };
    expect(() => replaceWhole(path, ['kind: after\n'], { check: gone })).toThrow(
      /^its temporary file .*\/\.out\.yaml\.[^/]+ was removed by another process before it was put in place; nothing was replaced$/,
    );
    expect(readdirSync(at)).toEqual(['out.yaml']);
    expect(readFileSync(path, 'utf8')).toBe('kind: before\n');
  });
});
