import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { svc } from '../helpers/svc.js';
import { attackDirs, cases } from './lib.js';

/**
 * Attack class "config races and malformed files": many processes write profiles at once, and
 * the files are damaged in every shape a hand edit or a crash can leave. Every write happens
 * under the same lock and atomic rename as credentials (re-read once the lock is held), so no
 * write is lost; every malformed file is reported by name (exit 2) and left as it was.
 */

const dirs = attackDirs();
let n = 0;
const freshDir = () => {
  const dir = join(dirs.root, `config-${++n}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
};

describe('parallel writers', () => {
  it('20 parallel `svc -p pN config set base_url …` leave 20 profiles', async () => {
    const dir = freshDir();
    const writers = cases(20, 40);
    const results = await Promise.all(
      Array.from({ length: writers }, (_, i) =>
        svc(['-p', `p${i}`, 'config', 'set', 'base_url', `http://127.0.0.1:${4000 + i}`], {
          env: { SVC_CONFIG_DIR: dir, SVC_CACHE_DIR: join(dirs.root, 'cache') },
        }),
      ),
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(Object.keys(file.profiles).sort()).toEqual(
      Array.from({ length: writers }, (_, i) => `p${i}`).sort(),
    );
    for (let i = 0; i < writers; i++)
      expect(file.profiles[`p${i}`].base_url).toBe(`http://127.0.0.1:${4000 + i}`);
    expect(file.active_profile).toMatch(/^p\d+$/);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    // No temporary files or locks left behind.
    expect(readdirSync(dir).sort()).toEqual(['config.json']);
  });

  it('config and credential writers at once lose nothing in either file', async () => {
    const dir = freshDir();
    const env = { SVC_CONFIG_DIR: dir, SVC_CACHE_DIR: join(dirs.root, 'cache') };
    const runs = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) =>
        svc(['-p', `c${i}`, 'config', 'set', 'tenant', `t${i}`], { env }),
      ),
      ...Array.from({ length: 8 }, (_, i) => svc(['-p', `c${i}`, 'config', 'set', 'org', `o${i}`], { env })),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    for (let i = 0; i < 8; i++) expect(file.profiles[`c${i}`]).toEqual({ tenant: `t${i}`, org: `o${i}` });
  });
});

const MALFORMED: Array<[string, string]> = [
  ['an empty file', ''],
  ['only whitespace', ' \n'],
  ['invalid JSON', '{"profiles": {"default": '],
  ['a JSON array', '[]'],
  ['JSON null', 'null'],
  ['profiles as an array', '{"profiles":[]}'],
  ['profiles as a string', '{"profiles":"default"}'],
  ['a profile that is not an object', '{"profiles":{"default":"http://x"}}'],
  ['a setting that is not a string', '{"profiles":{"default":{"base_url":4010}}}'],
  ['active_profile that is not a string', '{"active_profile":7,"profiles":{}}'],
];

describe.each(MALFORMED)('config.json holding %s', (_name, content) => {
  it.each([
    ['config set', ['config', 'set', 'tenant', 't1']],
    ['config ls', ['config', 'ls']],
    ['profiles ls', ['profiles', 'ls']],
    ['me', ['me']],
  ])('%s: exit 2 naming the file, which is left as it was', async (_verb, argv) => {
    const dir = freshDir();
    const path = join(dir, 'config.json');
    writeFileSync(path, content, { mode: 0o600 });
    const result = await runInProcess(argv, { SVC_CONFIG_DIR: dir, SVC_TOKEN: 'tok_config_test_123' });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.startsWith(`error: cannot read ${path}: `), result.stderr).toBe(true);
    expect(result.stderr).toMatch(/: .+; fix or remove the file/);
    expect(readFileSync(path, 'utf8')).toBe(content);
  });
});

const MALFORMED_CREDENTIALS: Array<[string, string]> = [
  ['an empty file', ''],
  ['profiles as an array', '{"profiles":[]}'],
  ['a credential without a token', '{"profiles":{"default":{"type":"token"}}}'],
  ['a credential of an unknown type', '{"profiles":{"default":{"type":"magic","access_token":"x"}}}'],
];

describe.each(MALFORMED_CREDENTIALS)('credentials.json holding %s', (_name, content) => {
  it('svc me and svc logout: exit 2 naming the file, left as it was', async () => {
    const dir = freshDir();
    const path = join(dir, 'credentials.json');
    writeFileSync(path, content, { mode: 0o600 });
    for (const argv of [['me'], ['logout']]) {
      const result = await runInProcess(argv, { SVC_CONFIG_DIR: dir, SVC_BASE_URL: 'http://127.0.0.1:9' });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`cannot read ${path}`);
    }
    expect(readFileSync(path, 'utf8')).toBe(content);
  });
});

describe('a bad base_url in a profile', () => {
  it('is reported with the name of the real profile', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'config.json'), '{"profiles":{"staging":{"base_url":"not a url"}}}', {
      mode: 0o600,
    });
    const result = await runInProcess(['-p', 'staging', 'me'], { SVC_CONFIG_DIR: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('base_url in profile "staging" must be an absolute http(s) URL');
  });
});
