/**
 * test/helpers/temp.ts's rules for where each helper may be called. useTempDir registers the
 * beforeAll that makes its directory and the afterAll that removes it: called in a test or a hook,
 * neither runs, and whatever writes into the path makes a directory nothing removes (a login in
 * test/e2e/consent-robot.test.ts left one svc-test-* per full run, session 27).
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir, useTempDir } from '../helpers/temp.js';

const atCollection = useTempDir('svc-temp-helper-');

describe('useTempDir', () => {
  let inHook: unknown;
  beforeAll(() => {
    try {
      useTempDir('svc-temp-helper-hook-');
    } catch (error) {
      inHook = error;
    }
  });

  it('at collection: a directory in TMPDIR, made before the tests', () => {
    expect(atCollection.startsWith(tmpdir())).toBe(true);
    expect(existsSync(atCollection)).toBe(true);
  });

  it('in a test: refused, naming the fix', () => {
    expect(() => useTempDir('svc-temp-helper-test-')).toThrow(
      "useTempDir('svc-temp-helper-test-') in a test or a hook: call it at the file's top level (or in a describe body), or use tempDir('svc-temp-helper-test-') here",
    );
  });

  it('in a hook: refused', () => {
    expect(String(inHook)).toContain("useTempDir('svc-temp-helper-hook-') in a test or a hook");
  });

  it('tempDir in a test: made at once', () => {
    expect(existsSync(tempDir('svc-temp-helper-made-'))).toBe(true);
  });
});
