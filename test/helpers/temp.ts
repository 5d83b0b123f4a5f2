/**
 * Temporary directories a test file makes and removes, however its tests end.
 *
 * Never `mkdtempSync` at a file's top level or in a `describe` body: that runs when the file is
 * collected, and vitest runs no hook of a file whose tests are all filtered out (`-t`, Stryker's
 * per-mutant runs), so its afterAll never removes it. Mutation runs collect each file thousands of
 * times: /tmp held 90,000 such directories (session 26). Here the directories are made in a hook
 * or a test and removed by hooks registered at collection time.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

function remove(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * One directory for the whole file: its path (`prefix` + six random characters in TMPDIR, as
 * mkdtemp names it) at once, so cases built at collection can name it; the directory itself is
 * made (owner-only, never over an existing one) before the file's tests and removed after them.
 */
export function useTempDir(prefix: string): string {
  const dir = join(tmpdir(), `${prefix}${randomName()}`);
  beforeAll(() => {
    mkdirSync(dir, { mode: 0o700 });
  });
  afterAll(() => remove(dir));
  return dir;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomName(): string {
  return [...randomBytes(6)].map((byte) => LETTERS[byte % LETTERS.length]).join('');
}

/**
 * A new directory on every call: one made in a test (or its beforeEach) is removed after that
 * test, one made in a beforeAll after the file, so no directory is removed while a test of the
 * file may still use it.
 */
export function tempDirs(prefix: string): () => string {
  let started = false;
  let inTest = false;
  const perTest: string[] = [];
  const perFile: string[] = [];
  beforeAll(() => {
    started = true;
  });
  beforeEach(() => {
    inTest = true;
  });
  afterEach(() => {
    inTest = false;
    for (const dir of perTest.splice(0)) remove(dir);
  });
  afterAll(() => {
    for (const dir of perFile.splice(0)) remove(dir);
  });
  return () => {
    if (!started)
      throw new Error(`make the temporary directory ${prefix}* in a hook or a test, not at collection`);
    const dir = mkdtempSync(join(tmpdir(), prefix));
    (inTest ? perTest : perFile).push(dir);
    return dir;
  };
}
