import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runListen } from '../../src/commands/webhooks/listen-run.js';
import { createContext } from '../../src/context.js';
import { escapeForTerminal, escapeJsonForTerminal } from '../../src/output/sanitize.js';
import { fakeIO, runInProcess, testDeps } from '../helpers/context.js';
import { answers, useHostileServer } from '../helpers/hostile.js';
import { TREASURY } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { anyCodePoint, attackDirs, cases } from './lib.js';

/**
 * Attack class "terminal escapes": data from the server or from any request body carries
 * escape sequences (OSC 52 clipboard writes, OSC 0 titles, ESC[2J), C1 controls (0x9B is a
 * one-byte CSI) and bidi overrides (Trojan Source). Whatever reaches a terminal passes one
 * sanitizer that makes them visible (`\x1b`, `\u202e`); JSON on a terminal escapes them as
 * `\u009b` (still the same JSON); pipes of --json/--ndjson and raw `svc api` bodies keep the
 * bytes as they came.
 */

const OSC52 = '\u001b]52;c;ZXZpbA==\u0007';
const HOSTILE = `${OSC52}\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202egnp.exe\u2066x\u0085`;
/**
 * Characters that must never reach a terminal raw: C0 but \t and \n, DEL, C1, bidi controls, the
 * word joiners and invisible operators (U+2060–2064), the line and paragraph separators and a
 * byte-order mark.
 */
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u2028\u2029\ufeff]/;

const sandbox = useSandbox();
const dirs = attackDirs();
const env = (extra: Record<string, string> = {}) => ({
  ...dirs.env,
  SVC_BASE_URL: sandbox().url,
  SVC_TOKEN: sandbox().adminToken,
  SVC_TENANT: TREASURY,
  // svc's own colour codes are escapes too; what is checked here is what the data carries.
  NO_COLOR: '1',
  ...extra,
});

describe('svc webhooks listen prints what any body says, escaped', () => {
  async function listen(mode: string[], tty: boolean) {
    const fake = fakeIO({ tty });
    const controller = new AbortController();
    const ctx = createContext(
      testDeps(
        fake.io,
        { ...dirs.env, SVC_WEBHOOK_SECRET: 'whsec_listen_escape_test' },
        { signal: controller.signal },
      ),
      { json: mode.includes('--json'), ndjson: mode.includes('--ndjson') },
    );
    const running = runListen(ctx, {
      host: '127.0.0.1',
      port: 0,
      secretFile: undefined,
      forwardTo: undefined,
      toleranceSeconds: 300,
      webhook: undefined,
      publicUrl: undefined,
      capture: undefined,
    });
    // No limit of their own (they were 2 s, which a loaded machine can need): the test's timeout
    // ends a wait that never does.
    let url: string | undefined;
    for (;;) {
      url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(fake.stderr())?.[1];
      if (url) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const body = JSON.stringify({ id: `evt_${HOSTILE}`, type: HOSTILE });
    const answer = await fetch(url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-signature': 't=1,v1=00' },
      body,
    });
    expect(answer.status).toBe(400);
    while (fake.stdout() === '') await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await running;
    return fake;
  }

  it.each([
    ['a terminal', [], true],
    ['a pipe', [], false],
  ])('human lines on %s show the escapes, never perform them', async (_name, mode, tty) => {
    const fake = await listen(mode, tty);
    expect(fake.stdout()).not.toMatch(UNSAFE);
    expect(fake.stdout()).toContain('\\x1b]52;c;ZXZpbA==\\x07');
    expect(fake.stdout()).toContain('\\u202egnp.exe');
    expect(fake.stderr()).not.toMatch(UNSAFE);
  });

  it('--ndjson on a terminal escapes C1 and bidi as JSON escapes (same value)', async () => {
    const fake = await listen(['--ndjson'], true);
    expect(fake.stdout()).not.toMatch(UNSAFE);
    expect(JSON.parse(fake.stdout()).event_type).toBe(HOSTILE);
  });

  it('--ndjson in a pipe keeps the bytes JSON allows', async () => {
    const fake = await listen(['--ndjson'], false);
    expect(fake.stdout()).toContain('\u202egnp.exe');
    expect(JSON.parse(fake.stdout()).event_type).toBe(HOSTILE);
  });
});

describe('API data in every output mode', () => {
  let id = '';
  it('a record holding escapes is created', async () => {
    const created = await call(sandbox(), 'POST', '/v1/reconciliations', {
      token: sandbox().adminToken,
      tenant: TREASURY,
      body: { name: HOSTILE, [`k${HOSTILE}`]: 1, idempotency_key: 'esc-1' },
    });
    expect(created.status).toBe(201);
    id = created.body.id;
  });

  it.each([
    ['table', [], true],
    ['TSV', [], false],
    ['record on a terminal', ['get'], true],
    ['record in a pipe', ['get'], false],
  ])('%s: escaped', async (_name, verb, tty) => {
    const argv = verb.length
      ? ['records', 'get', 'reconciliations', id]
      : ['records', 'ls', 'reconciliations'];
    const result = await runInProcess(argv, env(), { tty });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(UNSAFE);
    // A string field shows \x1b; a field shown as JSON shows JSON's own \u001b.
    expect(result.stdout).toMatch(/\\(x1b|u001b)\]52;c;ZXZpbA==/);
  });

  it('--json on a terminal: \\u escapes, the same JSON value', async () => {
    const result = await runInProcess(['--json', 'records', 'get', 'reconciliations', id], env(), {
      tty: true,
    });
    expect(result.stdout).not.toMatch(UNSAFE);
    expect(result.stdout).toContain('\\u009b31m\\u202egnp.exe');
    expect(JSON.parse(result.stdout).name).toBe(HOSTILE);
  });

  it('--json in a pipe: the bytes JSON allows, unchanged', async () => {
    const result = await runInProcess(['--json', 'records', 'get', 'reconciliations', id], env());
    expect(result.stdout).toContain('\u009b31m\u202egnp.exe');
    expect(JSON.parse(result.stdout).name).toBe(HOSTILE);
  });

  it('--debug traces escape what the server sent', async () => {
    const result = await runInProcess(['--debug', '--json', 'records', 'get', 'reconciliations', id], env());
    expect(result.stderr).toContain('< 200');
    expect(result.stderr).not.toMatch(UNSAFE);
  });
});

describe('a hostile server', () => {
  const server = useHostileServer();
  const hostileEnv = (url: string) => ({
    ...dirs.env,
    SVC_BASE_URL: url,
    SVC_TOKEN: 'tok_escape_test_value',
  });

  it.each([
    ['on a terminal: escaped', true],
    ['in a pipe: as it came', false],
  ])('svc api prints a raw body %s', async (_name, tty) => {
    const s = await server();
    s.answer(answers.raw(200, `text ${HOSTILE}\n`, 'text/plain'));
    const result = await runInProcess(['api', 'GET', '/v1/x'], hostileEnv(s.url), { tty });
    expect(result.code).toBe(0);
    if (tty) {
      expect(result.stdout).not.toMatch(UNSAFE);
      expect(result.stdout).toContain('\\x1b]52');
    } else expect(result.stdout).toBe(`text ${HOSTILE}\n`);
  });

  it('svc api -i on a terminal escapes header values (C1 CSI in a header)', async () => {
    const s = await server();
    s.answer(answers.raw(200, '{}', 'application/json', { 'x-note': 'a\u009b2Jb' }));
    const result = await runInProcess(['api', '-i', 'GET', '/v1/x'], hostileEnv(s.url), { tty: true });
    expect(result.stdout).not.toMatch(UNSAFE);
    expect(result.stdout).toContain('x-note: a\\x9b2Jb');
  });

  it.each([
    ['human', []],
    ['--json', ['--json']],
  ])('an error message full of escapes (%s) is escaped', async (_name, mode) => {
    const s = await server();
    s.answer(answers.json(404, { error: { code: 'not_found', message: `no ${HOSTILE}` } }));
    const result = await runInProcess([...mode, 'me'], hostileEnv(s.url));
    expect(result.code).toBe(5);
    expect(result.stderr).not.toMatch(UNSAFE);
  });
});

describe('the sanitizer (fuzzed)', () => {
  // Each class named once, so the property below is not left to the seed to reach them.
  it.each([
    ['\ufeff', '\\ufeff'],
    ['\u2060', '\\u2060'],
    ['\u2028', '\\u2028'],
    ['\u2029', '\\u2029'],
    ['\u061c', '\\u061c'],
    ['\u009b', '\\x9b'],
    ['\u001b', '\\x1b'],
  ])('escapes %j as %s', (char, shown) => {
    const out = escapeForTerminal(`a${char}b`);
    expect(out).toBe(`a${shown}b`);
    expect(out).not.toMatch(UNSAFE);
  });

  it.each(['\u200b', '\u200c', '\u200d', '\u00ad', 'é', '👩\u200d💻'])('keeps %j drawn as it is', (text) => {
    expect(escapeForTerminal(text)).toBe(text);
  });

  it('leaves nothing unsafe, and keeps safe text as it was', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyCodePoint, maxLength: 80 }), (text) => {
        const out = escapeForTerminal(text);
        expect(out).not.toMatch(UNSAFE);
        if (!UNSAFE.test(text)) expect(out).toBe(text);
      }),
      { numRuns: cases(500, 50_000) },
    );
  });

  it('JSON on a terminal is the same JSON value with nothing unsafe', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.string({ unit: anyCodePoint, maxLength: 20 }),
        (value, s) => {
          const doc = { value, s };
          const out = escapeJsonForTerminal(JSON.stringify(doc, null, 2));
          expect(out).not.toMatch(UNSAFE);
          expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(doc)));
        },
      ),
      { numRuns: cases(500, 50_000) },
    );
  });
});
