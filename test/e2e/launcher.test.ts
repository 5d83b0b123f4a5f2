import {
  chmodSync,
  chownSync,
  cpSync,
  lchownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/system/run.js';
import { BIN, baseEnv, ROOT, svc } from '../helpers/svc.js';
import { tempDir } from '../helpers/temp.js';

/** The launcher's own folder under SVC_CACHE_DIR, which may be a directory shared with other tools. */
const CODE_CACHE = 'svc-code-cache';
const DAY_MS = 24 * 3600 * 1000;

describe('the launcher (bin/svc.js)', () => {
  it('answers --version without loading the program', async () => {
    const r = await svc(['--version']);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('writes a V8 code cache per command, uses it next time, and survives a corrupt one', async () => {
    const cacheDir = tempDir('svc-cc-');
    const env = { SVC_CACHE_DIR: cacheDir, SVC_DEBUG_CODE_CACHE: '1' };
    const first = await svc(['config', 'ls'], { env: { ...env, SVC_CONFIG_DIR: join(cacheDir, 'cfg') } });
    expect(first.stderr).toContain('code cache: none');
    const [versionDir] = readdirSync(join(cacheDir, CODE_CACHE));
    expect(readdirSync(join(cacheDir, CODE_CACHE, versionDir!))).toEqual(['config.bin']);
    const second = await svc(['config', 'ls'], { env: { ...env, SVC_CONFIG_DIR: join(cacheDir, 'cfg') } });
    expect(second.stderr).toContain('code cache: used');
    expect(second.stdout).toBe(first.stdout);

    writeFileSync(join(cacheDir, CODE_CACHE, versionDir!, 'config.bin'), 'not a cache');
    const corrupt = await svc(['config', 'ls'], { env: { ...env, SVC_CONFIG_DIR: join(cacheDir, 'cfg') } });
    expect(corrupt.code).toBe(0);
    expect(corrupt.stderr).toContain('code cache: rejected');
    const healed = await svc(['config', 'ls'], { env: { ...env, SVC_CONFIG_DIR: join(cacheDir, 'cfg') } });
    expect(healed.stderr).toContain('code cache: used');
  });

  it('names the cache after the command, past global flags and their values (dist/launcher.json)', async () => {
    const cacheDir = tempDir('svc-cc-');
    const env = { SVC_CACHE_DIR: cacheDir, SVC_CONFIG_DIR: join(cacheDir, 'cfg') };
    // config set, not ls: a -p NAME that does not exist is exit 5 for a command that reads it.
    const r = await svc(
      ['--tenant', 'profiles', '-p', 'tenants', '--timeout', '5', 'config', 'set', 'org', 'o'],
      {
        env,
      },
    );
    expect(r.code).toBe(0);
    const [versionDir] = readdirSync(join(cacheDir, CODE_CACHE));
    expect(readdirSync(join(cacheDir, CODE_CACHE, versionDir!))).toEqual(['config.bin']);
  });

  // s25: `-yp prod` was read as a flag, then the command `prod` (no command: other.bin).
  it('names the cache after the command past a group of short flags whose last takes a value (-yp NAME, -ypNAME)', async () => {
    const cacheDir = tempDir('svc-cc-');
    try {
      const env = { SVC_CACHE_DIR: cacheDir, SVC_CONFIG_DIR: join(cacheDir, 'cfg') };
      for (const group of [['-yp', 'prod'], ['-ypprod']]) {
        expect((await svc([...group, 'config', 'set', 'org', 'o'], { env })).code).toBe(0);
      }
      const [versionDir] = readdirSync(join(cacheDir, CODE_CACHE));
      expect(readdirSync(join(cacheDir, CODE_CACHE, versionDir!))).toEqual(['config.bin']);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('keeps one cache for all words that are no command (a typo), and one per command with its aliases', async () => {
    const cacheDir = tempDir('svc-cc-');
    try {
      const env = { SVC_CACHE_DIR: cacheDir, SVC_CONFIG_DIR: join(cacheDir, 'cfg') };
      for (const word of ['typoa', 'typob', 'typoc', 'role', 'roles']) {
        expect((await svc([word], { env })).code).toBe(2);
      }
      const [versionDir] = readdirSync(join(cacheDir, CODE_CACHE));
      expect(readdirSync(join(cacheDir, CODE_CACHE, versionDir!)).sort()).toEqual(['other.bin', 'roles.bin']);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('removes only caches it made: never a foreign v8-… file or folder in a shared SVC_CACHE_DIR', async () => {
    const shared = tempDir('svc-cc-shared-');
    try {
      mkdirSync(join(shared, 'v8-profiles'));
      writeFileSync(join(shared, 'v8-profiles', 'a.cpuprofile'), 'keep');
      writeFileSync(join(shared, 'v8-log.txt'), 'keep');
      // An older svc's cache goes; a cache-shaped folder holding something svc never writes stays.
      const old = join(shared, CODE_CACHE, 'v8-v18.0.0-x64-1-2');
      const foreign = join(shared, CODE_CACHE, 'v8-v18.0.0-x64-3-4');
      mkdirSync(old, { recursive: true });
      mkdirSync(foreign);
      writeFileSync(join(old, 'config.bin'), 'old');
      writeFileSync(join(foreign, 'config.bin'), 'old');
      writeFileSync(join(foreign, 'notes.txt'), 'keep');
      // Unused for 31 days (attack23b F5: only such a folder goes).
      const longAgo = new Date(Date.now() - 31 * DAY_MS);
      for (const dir of [old, foreign]) utimesSync(dir, longAgo, longAgo);
      const r = await svc(['--help'], { env: { SVC_CACHE_DIR: shared } });
      expect(r.code).toBe(0);
      expect(readdirSync(shared).sort()).toEqual([CODE_CACHE, 'v8-log.txt', 'v8-profiles']);
      expect(readFileSync(join(shared, 'v8-profiles', 'a.cpuprofile'), 'utf8')).toBe('keep');
      const caches = readdirSync(join(shared, CODE_CACHE));
      expect(caches).not.toContain('v8-v18.0.0-x64-1-2');
      expect(caches).toContain('v8-v18.0.0-x64-3-4');
      expect(readdirSync(foreign).sort()).toEqual(['config.bin', 'notes.txt']);
      expect(caches.filter((name) => name.startsWith(`v8-${process.version}-`))).toHaveLength(1);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  // attack23b F5: two versions sharing a cache directory deleted each other's cache on every run
  // (a newer one's too), so versions run in turn compiled from source at every start.
  it("keeps another version's cache used in the last 30 days, and marks its own used once a day", async () => {
    const shared = tempDir('svc-cc-versions-');
    try {
      const other = join(shared, CODE_CACHE, 'v8-v99.0.0-x64-1-2');
      const unused = join(shared, CODE_CACHE, 'v8-v18.0.0-x64-1-2');
      for (const dir of [other, unused]) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'root.bin'), 'cache');
      }
      // The other version last ran 29 days ago; the older one 31 days ago.
      utimesSync(other, new Date(Date.now() - 29 * DAY_MS), new Date(Date.now() - 29 * DAY_MS));
      utimesSync(unused, new Date(Date.now() - 31 * DAY_MS), new Date(Date.now() - 31 * DAY_MS));
      const env = { env: { SVC_CACHE_DIR: shared, SVC_DEBUG_CODE_CACHE: '1' } };
      expect((await svc(['--help'], env)).code).toBe(0);
      const caches = readdirSync(join(shared, CODE_CACHE)).sort();
      const [own] = caches.filter((name) => name.startsWith(`v8-${process.version}-`));
      expect(caches).toEqual([own, 'v8-v99.0.0-x64-1-2'].sort());
      expect(readdirSync(other)).toEqual(['root.bin']);
      // Its own cache, used by a start two days after it was written: marked used now.
      const mine = join(shared, CODE_CACHE, own!);
      utimesSync(mine, new Date(Date.now() - 2 * DAY_MS), new Date(Date.now() - 2 * DAY_MS));
      const used = await svc(['--help'], env);
      expect(used.stderr).toContain('code cache: used');
      expect(Date.now() - statSync(mine).mtimeMs).toBeLessThan(DAY_MS);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  it('never cleans through a symbolic link named like an old cache (the folder it points to keeps its files)', async () => {
    const root = tempDir('svc-cc-link-');
    try {
      const [shared, target] = [join(root, 'shared'), join(root, 'target')];
      mkdirSync(join(shared, CODE_CACHE), { recursive: true, mode: 0o700 });
      mkdirSync(target);
      writeFileSync(join(target, 'data.bin'), 'precious');
      writeFileSync(join(target, 'other.bin'), 'x');
      symlinkSync(target, join(shared, CODE_CACHE, 'v8-v1.2.3-x64-1-2'));
      const r = await svc(['--help'], { env: { SVC_CACHE_DIR: shared } });
      expect(r.code).toBe(0);
      expect(readdirSync(target).sort()).toEqual(['data.bin', 'other.bin']);
      expect(readdirSync(join(shared, CODE_CACHE)).some((n) => n.startsWith(`v8-${process.version}-`))).toBe(
        true,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('never cleans through a symbolic link in the legacy default directory (~/.cache/svc)', async () => {
    const root = tempDir('svc-cc-legacy-');
    try {
      const home = join(root, 'home');
      mkdirSync(join(home, '.cache', 'svc'), { recursive: true });
      mkdirSync(join(home, 'firmware'));
      writeFileSync(join(home, 'firmware', 'boot.bin'), 'p');
      symlinkSync(join(home, 'firmware'), join(home, '.cache', 'svc', 'v8-v18.0.0-x64-1-1'));
      const env = { ...baseEnv({ HOME: home }), SVC_CONFIG_DIR: join(root, 'cfg') };
      delete (env as Record<string, string | undefined>).SVC_CACHE_DIR;
      const r = await runProcess(process.execPath, [BIN, '--help'], { env, cwd: root });
      expect(r.code).toBe(0);
      expect(readdirSync(join(home, 'firmware'))).toEqual(['boot.bin']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('uses no svc-code-cache folder that others can write to (as ssh refuses such a ~/.ssh)', async () => {
    const shared = tempDir('svc-cc-open-');
    try {
      mkdirSync(join(shared, CODE_CACHE));
      chmodSync(join(shared, CODE_CACHE), 0o777);
      const r = await svc(['--help'], { env: { SVC_CACHE_DIR: shared, SVC_DEBUG_CODE_CACHE: '1' } });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(
        `code cache: off (${join(shared, CODE_CACHE)} is writable by other users)\ncode cache: none\n`,
      );
      expect(readdirSync(join(shared, CODE_CACHE))).toEqual([]);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // Giving a folder to another user needs root; as another user this one test is skipped, by name.
  (isRoot ? it : it.skip)(
    'uses no svc-code-cache folder another user owns, in a shared sticky directory such as /tmp (needs root: skipped when not root)',
    async () => {
      const shared = tempDir('svc-cc-sticky-');
      const victim = tempDir('svc-cc-victim-');
      try {
        chmodSync(shared, 0o1777);
        mkdirSync(join(victim, 'keys'));
        writeFileSync(join(victim, 'keys', 'signing.bin'), 'secret-material');
        mkdirSync(join(shared, CODE_CACHE), { mode: 0o755 });
        symlinkSync(join(victim, 'keys'), join(shared, CODE_CACHE, 'v8-v1.0.0-x64-1-1'));
        lchownSync(join(shared, CODE_CACHE, 'v8-v1.0.0-x64-1-1'), 65534, 65534);
        chownSync(join(shared, CODE_CACHE), 65534, 65534);
        const r = await svc(['--help'], { env: { SVC_CACHE_DIR: shared, SVC_DEBUG_CODE_CACHE: '1' } });
        expect(r.code).toBe(0);
        expect(r.stderr).toBe(
          `code cache: off (${join(shared, CODE_CACHE)} belongs to another user)\ncode cache: none\n`,
        );
        expect(readdirSync(join(victim, 'keys'))).toEqual(['signing.bin']);
        expect(readdirSync(join(shared, CODE_CACHE))).toEqual(['v8-v1.0.0-x64-1-1']);
      } finally {
        rmSync(shared, { recursive: true, force: true });
        rmSync(victim, { recursive: true, force: true });
      }
    },
  );

  it.each(['~/c', '$HOME/c', '"$HOME/c"', "'~/c'"])(
    'makes no cache for SVC_CACHE_DIR=%s, which svc refuses: nothing is made in the current directory (review16c R8)',
    async (value) => {
      const cwd = tempDir('svc-cc-tilde-');
      try {
        const env = {
          ...baseEnv({ SVC_CACHE_DIR: value }),
          SVC_CONFIG_DIR: join(cwd, '..', 'nonexistent-cfg'),
        };
        const r = await runProcess(process.execPath, [BIN, 'profiles', 'ls'], { env, cwd });
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/that no shell (took off or )?expanded/);
        expect(readdirSync(cwd)).toEqual([]);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );

  it('ignores a relative XDG_CACHE_HOME (XDG Base Directory spec): the cache goes to ~/.cache, not the cwd', async () => {
    const root = tempDir('svc-cc-xdg-');
    try {
      const [home, cwd] = [join(root, 'home'), join(root, 'cwd')];
      mkdirSync(home);
      mkdirSync(cwd);
      const env = { ...baseEnv({ HOME: home, XDG_CACHE_HOME: 'rel' }), SVC_CONFIG_DIR: join(root, 'cfg') };
      delete (env as Record<string, string | undefined>).SVC_CACHE_DIR;
      const r = await runProcess(process.execPath, [BIN, '--help'], { env, cwd });
      expect(r.code).toBe(0);
      expect(readdirSync(cwd)).toEqual([]);
      expect(readdirSync(join(home, '.cache', 'svc', CODE_CACHE))).toHaveLength(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  // review19c F6: a root run for $HOME's owner (`sudo -E`) made ~/.cache/svc root's, 0700: the
  // owner's own runs then went without a cache, silently. Root makes none in another's home.
  it.runIf(typeof process.getuid === 'function' && process.getuid() === 0)(
    "run as root in a HOME another user owns, makes no cache there (it would stay root's)",
    async () => {
      const root = tempDir('svc-cc-heir-');
      try {
        const home = join(root, 'home');
        mkdirSync(home);
        chownSync(home, 4242, 4242);
        const env = {
          ...baseEnv({ HOME: home }),
          SVC_CONFIG_DIR: join(root, 'cfg'),
          SVC_DEBUG_CODE_CACHE: '1',
        };
        delete (env as Record<string, string | undefined>).SVC_CACHE_DIR;
        const r = await runProcess(process.execPath, [BIN, '--help'], { env, cwd: root });
        expect(r.code).toBe(0);
        expect(readdirSync(home)).toEqual([]);
        expect(r.stderr).toContain(
          `code cache: off (${join(home, '.cache', 'svc', CODE_CACHE)} is in a directory of uid 4242, and this is root)\n`,
        );
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );

  it.runIf(process.platform === 'linux')(
    'takes an empty or relative HOME as no HOME (the user list), as svc does: never a cache in the cwd',
    () => {
      const launcher = createRequire(import.meta.url)(BIN) as {
        cacheDir(): { base: string; legacy: string } | undefined;
      };
      const saved = { ...process.env };
      try {
        delete process.env.SVC_CACHE_DIR;
        delete process.env.XDG_CACHE_HOME;
        delete process.env.SVC_NO_CODE_CACHE;
        for (const home of ['', 'relhome']) {
          process.env.HOME = home;
          const own = join(userInfo().homedir, '.cache', 'svc');
          expect(launcher.cacheDir()).toMatchObject({ base: join(own, CODE_CACHE), legacy: own });
        }
      } finally {
        for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
        Object.assign(process.env, saved);
      }
    },
  );

  it('runs without a cache when SVC_NO_CODE_CACHE=1', async () => {
    const cacheDir = tempDir('svc-cc-');
    const r = await svc(['--help'], {
      env: { SVC_CACHE_DIR: cacheDir, SVC_NO_CODE_CACHE: '1', SVC_DEBUG_CODE_CACHE: '1' },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('code cache: none');
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it.each(['yes', 'ON'])('reads SVC_NO_CODE_CACHE=%s by the one boolean rule', async (value) => {
    const cacheDir = tempDir('svc-cc-');
    const r = await svc(['--help'], { env: { SVC_CACHE_DIR: cacheDir, SVC_NO_CODE_CACHE: value } });
    expect(r.code).toBe(0);
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it('refuses a SVC_NO_CODE_CACHE that is not a boolean (exit 2, one line)', async () => {
    const cacheDir = tempDir('svc-cc-');
    const r = await svc(['--help'], { env: { SVC_CACHE_DIR: cacheDir, SVC_NO_CODE_CACHE: 'nope' } });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: SVC_NO_CODE_CACHE must be 1, true, yes or on (or 0, false, no, off), got "nope"\n',
    ]);
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it.each([
    ['tenants', 'ls', '--json'],
    ['--ndjson', 'tenants', 'ls'],
  ])('refuses it in the output mode asked for: svc %j, one JSON object, exit 2', async (...argv) => {
    const cacheDir = tempDir('svc-cc-');
    const r = await svc(argv, { env: { SVC_CACHE_DIR: cacheDir, SVC_NO_CODE_CACHE: 'maybe' } });
    expect([r.code, r.stdout, JSON.parse(r.stderr)]).toEqual([
      2,
      '',
      {
        error: {
          code: 'usage',
          message: 'SVC_NO_CODE_CACHE must be 1, true, yes or on (or 0, false, no, off), got "maybe"',
          exit_code: 2,
        },
      },
    ]);
  });

  it('refuses it for --version too', async () => {
    const r = await svc(['--version'], { env: { SVC_NO_CODE_CACHE: 'maybe' } });
    expect([r.code, r.stdout]).toEqual([2, '']);
  });

  it('says how to build when dist/ is missing', async () => {
    const dir = tempDir('svc-nodist-');
    cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [join(dir, 'bin', 'svc.js'), 'me'], { env: baseEnv() });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(1);
    expect(stderr).toBe('error: svc is not built; run `npm install` (or `npm run build`) in its folder\n');
  });
});
