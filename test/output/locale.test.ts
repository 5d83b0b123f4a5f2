/**
 * A locale that is not UTF-8 (LC_ALL=C, LANG=POSIX, …) cannot show svc's own symbols: ✓, …, →
 * come out as ASCII (ok, ..., ->) in what svc composes (messages, errors, a table's cut marks),
 * never in the data itself or in JSON. In-process.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { unicodeLocale } from '../../src/output/io.js';
import { useUnicodeMarks } from '../../src/output/symbols.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
// The marks are one setting per process (the last Output made sets them): the next file in this
// worker (vitest.config.ts isolate: false) must not inherit the C locale's ASCII.
afterAll(() => useUnicodeMarks(true));
const terminal = { tty: { stdout: true, stderr: true }, columns: 70 } as const;

describe('the locale decides svc’s symbols', () => {
  it.each<[Record<string, string>, boolean]>([
    [{}, true],
    [{ LANG: 'en_US.UTF-8' }, true],
    [{ LANG: 'de_DE.utf8' }, true],
    [{ LANG: 'C' }, false],
    [{ LANG: 'en_US.ISO-8859-1' }, false],
    [{ LC_CTYPE: 'POSIX', LANG: 'en_US.UTF-8' }, false],
    [{ LC_ALL: 'C', LC_CTYPE: 'C.UTF-8', LANG: 'en_US.UTF-8' }, false],
    [{ LC_ALL: '', LC_CTYPE: 'C.UTF-8', LANG: 'C' }, true],
  ])('%j: UTF-8 is %s (LC_ALL, else LC_CTYPE, else LANG; none set: UTF-8)', (env, utf8) => {
    expect(unicodeLocale(env)).toBe(utf8);
  });

  it.each([
    ['C', 'ok'],
    ['C.UTF-8', '✓'],
  ])('LC_ALL=%s: a success says %s', async (locale, mark) => {
    const name = `lc-${locale === 'C' ? 'plain' : 'utf'}`;
    const r = await svc.run(['roles', 'create', '--name', name, '--permission', 'account.read'], {
      ...terminal,
      env: { LC_ALL: locale },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `^${mark} created role ${name} \\(role_[0-9a-z]+\\) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\\n$`,
      ),
    );
  });

  it('LC_ALL=C: a table cut to fit the terminal marks its cuts with ...', async () => {
    const plain = await svc.run(['roles', 'ls'], { ...terminal, env: { LC_ALL: 'C' } });
    const utf8 = await svc.run(['roles', 'ls'], { ...terminal, env: { LANG: 'en_US.UTF-8' } });
    expect(utf8.stdout).toContain('…');
    expect(plain.stdout).not.toContain('…');
    expect(plain.stdout).toContain('...');
    expect(plain.stdout.split('\n').every((line) => line.length <= 70)).toBe(true);
  });

  it('LC_ALL=C: an error line uses ASCII; with --json the JSON is unchanged', async () => {
    const r = await svc.run(['roles', 'get', 'no-such-role'], { ...terminal, env: { LC_ALL: 'C' } });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^error: [\x20-\x7e]+\n$/);
    const utf8 = await svc.run(['roles', 'get', 'no-such-role'], terminal);
    expect(r.stderr.replace(/req_[0-9a-f]+/, '')).toBe(
      utf8.stderr.replaceAll('…', '...').replace(/req_[0-9a-f]+/, ''),
    );
    expect(utf8.stderr).toContain('…');
    const json = await svc.run(['roles', 'get', 'no-such-role', '--json'], {
      ...terminal,
      env: { LC_ALL: 'C' },
    });
    expect(JSON.parse(json.stderr).error.hint).toContain('…');
  });

  // Finding M2 (review-c, s11): the stand-ins were applied to the whole line, so the data an
  // error quotes came out as another plausible value (rec_✓…→x as rec_ok...->x). Only svc's own
  // marks are ASCII; what the user gave is quoted as given.
  it.each<[string[], string]>([
    [['records', 'get', 'accounts', 'rec_✓…→x'], 'rec_✓…→x'],
    [['roles', 'get', 'zü…✓→'], '"zü…✓→"'],
    [['webhooks', 'dlq', 'ls', 'wh_x', '--event-type', 'exception.✓…→'], '"exception.✓…→"'],
    [['profiles', 'use', 'ops→eu'], '"ops→eu"'],
  ])('LC_ALL=C, svc %j: the value is quoted as given', async (argv, quoted) => {
    const r = await svc.run(argv, { ...terminal, env: { LC_ALL: 'C' } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^error: /);
    expect(r.stderr).toContain(quoted);
    expect(r.stderr).not.toMatch(/ok\.\.\.->|\.\.\.ok->|ops->eu/);
  });

  it("LC_ALL=C: svc's own marks beside quoted data are ASCII", async () => {
    const r = await svc.run(['roles', 'get', 'zü…✓→'], { ...terminal, env: { LC_ALL: 'C' } });
    expect(r.stderr).toContain('(role_...)');
    expect(r.stderr.replace('zü…✓→', '')).toMatch(/^[\x20-\x7e\n]+$/);
  });
});
