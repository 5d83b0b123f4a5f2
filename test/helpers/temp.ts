/**
 * Temporary directories a test file makes, removed however its tests end.
 *
 * Never `mkdtempSync` at a file's top level or in a `describe` body: that runs when the file is
 * collected, and vitest runs no hook of a file whose tests are all filtered out (`-t`, Stryker's
 * per-mutant runs), so no afterAll removes it. Mutation runs collect each file thousands of times;
 * with the directories tests made and never removed, /tmp held 90,000 of them (session 26).
 *
 * - `tempDir(prefix)`: in a test or a hook, a new directory (`prefix` + six random characters in
 *   TMPDIR); one made in a test or its beforeEach is removed after that test, one made in a
 *   beforeAll after the file (never while a later test of the file may still use it). The hooks
 *   that remove them are the setup file's (test/helpers/temp-setup.ts), registered before every
 *   file's own, so they run after the file's own afterEach and afterAll.
 * - `useTempDir(prefix)`: one directory for the whole file whose path is known at collection
 *   (cases built there name it); the directory is made in beforeAll and removed in afterAll.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, type WriteFileOptions, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

type Phase = 'collect' | 'file' | 'test';

const made: { phase: Phase; setup: boolean; perFile: string[]; perTest: string[] } = {
  // Outside a run with the setup file (a script importing a helper): made, never removed by it.
  phase: 'file',
  setup: false,
  perFile: [],
  perTest: [],
};

function remove(dirs: string[]): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Called by test/helpers/temp-setup.ts only. */
export const tempDirHooks = {
  collecting(): void {
    made.phase = 'collect';
    made.setup = true;
  },
  fileStarts(): void {
    made.phase = 'file';
  },
  testStarts(): void {
    made.phase = 'test';
  },
  testEnds(): void {
    made.phase = 'file';
    remove(made.perTest);
  },
  fileEnds(): void {
    remove(made.perTest);
    remove(made.perFile);
  },
};

/** A new directory, removed after the test (or, made in a beforeAll, the file) that made it. */
export function tempDir(prefix: string): string {
  if (made.phase === 'collect') {
    throw new Error(`tempDir('${prefix}') at collection: call it in a test or a hook, or use useTempDir`);
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  (made.phase === 'test' ? made.perTest : made.perFile).push(dir);
  return dir;
}

/**
 * One directory for the whole file: its path (`prefix` + six random characters in TMPDIR, as
 * mkdtemp names it) at once; the directory itself is made (owner-only, never over an existing
 * one) before the file's tests and removed after them. `prepare` runs right after it is made (a
 * chmod, the files every test reads): never at collection.
 */
export function useTempDir(prefix: string, prepare?: (dir: string) => void): string {
  if (made.setup && made.phase !== 'collect') {
    // Its beforeAll and afterAll, registered in a test or a hook, never run: the directory was
    // not made, whatever wrote into its path made it, and nothing removed it (a login in
    // test/e2e/consent-robot.test.ts left one svc-test-* per full run, session 27).
    throw new Error(
      `useTempDir('${prefix}') in a test or a hook: call it at the file's top level (or in a describe body), or use tempDir('${prefix}') here`,
    );
  }
  const dir = join(tmpdir(), `${prefix}${randomName()}`);
  beforeAll(() => {
    mkdirSync(dir, { mode: 0o700 });
    prepare?.(dir);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomName(): string {
  return [...randomBytes(6)].map((byte) => LETTERS[byte % LETTERS.length]).join('');
}

/**
 * useTempDir with a `file(name, content, options)` that returns the file's path at once: called at
 * collection (a case table naming the file), the write waits for the directory (beforeAll); in a
 * hook or a test, it is written at once.
 */
export function useTempFiles(prefix: string): {
  dir: string;
  file: (name: string, content: string | Buffer, options?: WriteFileOptions) => string;
} {
  const waiting: Array<() => void> = [];
  let made = false;
  const dir = useTempDir(prefix, () => {
    made = true;
    for (const write of waiting.splice(0)) write();
  });
  afterAll(() => {
    made = false;
  });
  const file = (name: string, content: string | Buffer, options?: WriteFileOptions): string => {
    const path = join(dir, name);
    const write = () => writeFileSync(path, content, options);
    if (made) write();
    else waiting.push(write);
    return path;
  };
  return { dir, file };
}
