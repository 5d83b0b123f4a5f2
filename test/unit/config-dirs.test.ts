/**
 * SVC_CONFIG_DIR, SVC_STATE_DIR and SVC_CACHE_DIR name directories svc makes and keeps private
 * (0700). One that names a file is a mistake: refused in one line (exit 2) before svc reads or
 * changes anything, and the file keeps its mode and bytes. In-process.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectories } from '../../src/system/directories.js';
import { runInProcess } from '../helpers/context.js';
import { useTempDir } from '../helpers/temp.js';

const root = useTempDir('svc-test-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dirs = {
  SVC_CONFIG_DIR: join(root, 'config'),
  SVC_STATE_DIR: join(root, 'state'),
  SVC_CACHE_DIR: join(root, 'cache'),
};
const mode = (path: string) => statSync(path).mode & 0o777;

describe('a directory variable that names a file', () => {
  it.each([
    ['SVC_CONFIG_DIR', ['profiles', 'ls']],
    ['SVC_CONFIG_DIR', ['config', 'set', 'base_url', 'http://127.0.0.1:1']],
    ['SVC_STATE_DIR', ['profiles', 'ls']],
    ['SVC_CACHE_DIR', ['profiles', 'ls']],
  ] as const)(
    '%s, svc %j: one line naming it and the fix, exit 2, the file untouched',
    async (name, argv) => {
      const file = join(root, `plain-${name}-${argv[0]}`);
      writeFileSync(file, 'hello\n');
      chmodSync(file, 0o644);
      const result = await runInProcess([...argv], { ...dirs, [name]: file });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: ${name} ${file} is a file, not a directory; point ${name} at a directory (or unset it); svc changed nothing\n`,
      });
      expect([mode(file), readFileSync(file, 'utf8')]).toEqual([0o644, 'hello\n']);
    },
  );

  it('a path under a file: the same refusal, naming the file', async () => {
    const file = join(root, 'plain-under');
    writeFileSync(file, 'hello\n');
    chmodSync(file, 0o644);
    const result = await runInProcess(['profiles', 'ls'], { ...dirs, SVC_CONFIG_DIR: join(file, 'svc') });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: SVC_CONFIG_DIR ${join(file, 'svc')} is under a file (${file}), not a directory; point SVC_CONFIG_DIR at a directory (or unset it); svc changed nothing\n`,
    );
    expect(mode(file)).toBe(0o644);
  });

  it('with --json: the one error object', async () => {
    const file = join(root, 'plain-json');
    writeFileSync(file, 'hello\n');
    const result = await runInProcess(['profiles', 'ls', '--json'], { ...dirs, SVC_CONFIG_DIR: file });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: 'config', exit_code: 2 } });
  });
});

// Finding L3 (review-c, s11): a dangling symbolic link was taken for a path svc could make, and
// failed later with a raw EEXIST (config set said "saved without checking…" first).
describe('a directory variable that names a symbolic link to nothing', () => {
  it.each([
    ['SVC_CONFIG_DIR', ['config', 'set', 'tenant', 'acme-x']],
    ['SVC_STATE_DIR', ['webhooks', 'replay', 'wh_1', '--dlq', '--since', '1m']],
    ['SVC_CACHE_DIR', ['profiles', 'ls']],
  ] as const)('%s, svc %j: one line naming the link and where it points, exit 2', async (name, argv) => {
    const link = join(root, `dangling-${name}`);
    symlinkSync('nowhere', link);
    const result = await runInProcess([...argv], { ...dirs, [name]: link });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${name} ${link} is a symbolic link to nowhere, which does not exist; point ${name} at a directory (or unset it); svc changed nothing\n`,
    });
    expect(existsSync(join(root, 'nowhere'))).toBe(false);
  });

  it('a path under one: the same refusal, naming the link', async () => {
    const link = join(root, 'dangling-parent');
    symlinkSync(join(root, 'gone', 'away'), link);
    const result = await runInProcess(['profiles', 'ls'], { ...dirs, SVC_STATE_DIR: join(link, 'svc') });
    expect(result.stderr).toBe(
      `error: SVC_STATE_DIR ${join(link, 'svc')} is under a symbolic link (${link}) to ${join(root, 'gone', 'away')}, which does not exist; point SVC_STATE_DIR at a directory (or unset it); svc changed nothing\n`,
    );
    expect(result.code).toBe(2);
  });

  it('a missing path under a link to a directory is fine: svc makes it', async () => {
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'good-link'));
    const result = await runInProcess(['profiles', 'ls'], {
      ...dirs,
      SVC_STATE_DIR: join(root, 'good-link', 'svc'),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('makeDirectories', () => {
  it('makes every missing part, 0700, and leaves an existing directory alone', () => {
    const deep = join(root, 'a', 'b', 'c');
    makeDirectories(deep, 0o700);
    expect([mode(join(root, 'a')), mode(deep)]).toEqual([0o700, 0o700]);
    mkdirSync(join(root, 'open'), { mode: 0o755 });
    chmodSync(join(root, 'open'), 0o755);
    makeDirectories(join(root, 'open'), 0o700);
    expect(mode(join(root, 'open'))).toBe(0o755);
  });

  it('a file in the way: ENOTDIR, the file untouched', () => {
    const file = join(root, 'in-the-way');
    writeFileSync(file, 'x');
    chmodSync(file, 0o644);
    expect(() => makeDirectories(file, 0o700)).toThrow(/ENOTDIR/);
    expect(() => makeDirectories(join(file, 'x'), 0o700)).toThrow(/ENOTDIR/);
    expect(mode(file)).toBe(0o644);
  });
});
