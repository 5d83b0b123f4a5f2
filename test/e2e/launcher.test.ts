import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, ROOT, svc } from '../helpers/svc.js';

describe('the launcher (bin/svc.js)', () => {
  it('answers --version without loading the program', async () => {
    const r = await svc(['--version']);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('writes a V8 code cache per command, uses it next time, and survives a corrupt one', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'svc-cc-'));
    const env = { SVC_CACHE_DIR: cacheDir, SVC_DEBUG_CODE_CACHE: '1' };
    const first = await svc(['config', 'ls'], { env: { ...env, SVC_CONFIG_DIR: join(cacheDir, 'cfg') } });
    expect(first.stderr).toContain('code cache: none');
    const [versionDir] = readdirSync(cacheDir).filter((d) => d.startsWith('v8-'));
    expect(readdirSync(join(cacheDir, versionDir!))).toEqual(['config.bin']);
    const second = await svc(['config', 'ls'], { env: { ...env, SVC_CONFIG_DIR: join(cacheDir, 'cfg') } });
    expect(second.stderr).toContain('code cache: used');
    expect(second.stdout).toBe(first.stdout);

    writeFileSync(join(cacheDir, versionDir!, 'config.bin'), 'not a cache');
    const corrupt = await svc(['config', 'ls'], { env: { ...env, SVC_CONFIG_DIR: join(cacheDir, 'cfg') } });
    expect(corrupt.code).toBe(0);
    expect(corrupt.stderr).toContain('code cache: rejected');
    const healed = await svc(['config', 'ls'], { env: { ...env, SVC_CONFIG_DIR: join(cacheDir, 'cfg') } });
    expect(healed.stderr).toContain('code cache: used');
  });

  it('names the cache after the command, past global flags and their values (dist/launcher.json)', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'svc-cc-'));
    const env = { SVC_CACHE_DIR: cacheDir, SVC_CONFIG_DIR: join(cacheDir, 'cfg') };
    // config set, not ls: a -p NAME that does not exist is exit 5 for a command that reads it.
    const r = await svc(
      ['--tenant', 'profiles', '-p', 'tenants', '--timeout', '5', 'config', 'set', 'org', 'o'],
      {
        env,
      },
    );
    expect(r.code).toBe(0);
    const [versionDir] = readdirSync(cacheDir).filter((d) => d.startsWith('v8-'));
    expect(readdirSync(join(cacheDir, versionDir!))).toEqual(['config.bin']);
  });

  it('keeps one cache for all words that are no command (a typo), and one per command with its aliases', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'svc-cc-'));
    try {
      const env = { SVC_CACHE_DIR: cacheDir, SVC_CONFIG_DIR: join(cacheDir, 'cfg') };
      for (const word of ['typoa', 'typob', 'typoc', 'role', 'roles']) {
        expect((await svc([word], { env })).code).toBe(2);
      }
      const [versionDir] = readdirSync(cacheDir).filter((d) => d.startsWith('v8-'));
      expect(readdirSync(join(cacheDir, versionDir!)).sort()).toEqual(['other.bin', 'roles.bin']);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('runs without a cache when SVC_NO_CODE_CACHE=1', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'svc-cc-'));
    const r = await svc(['--help'], {
      env: { SVC_CACHE_DIR: cacheDir, SVC_NO_CODE_CACHE: '1', SVC_DEBUG_CODE_CACHE: '1' },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('code cache: none');
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it.each(['yes', 'ON'])('reads SVC_NO_CODE_CACHE=%s by the one boolean rule', async (value) => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'svc-cc-'));
    const r = await svc(['--help'], { env: { SVC_CACHE_DIR: cacheDir, SVC_NO_CODE_CACHE: value } });
    expect(r.code).toBe(0);
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it('refuses a SVC_NO_CODE_CACHE that is not a boolean (exit 2, one line)', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'svc-cc-'));
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
    const cacheDir = mkdtempSync(join(tmpdir(), 'svc-cc-'));
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
    const dir = mkdtempSync(join(tmpdir(), 'svc-nodist-'));
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
