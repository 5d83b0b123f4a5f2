/**
 * Ids svc cannot have been given by the platform (attack24c F4, F5). A 10,000-character id was sent
 * and the server's "no route …" echoed it whole: a 10–20 KB error line. An id holding a newline was
 * sent too, and its "not found" drew it as `a b`, unquoted, while a role's error drew `"a\nb"`.
 * Every error's over-long run is cut as a value an error repeats is; an id with a control
 * character is refused before it is sent, quoted and escaped.
 */
import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const long = 'x'.repeat(10_000);

describe('an over-long id (attack24c F4)', () => {
  it('roles assign: the error line is cut, whole in no message', async () => {
    const r = await svc.run([
      'roles',
      'assign',
      long,
      'tenant_viewer',
      '--expires-in',
      '8h',
      '--justification',
      'x',
    ]);
    expect(r.code).toBe(5);
    expect(r.stderr.length).toBeLessThan(500);
    // The run cut is the whole path the server's "no route" repeats, its id inside.
    expect(r.stderr).toMatch(/\nerror: no route POST \/v1\/users\/x{50}…x{33}\/roles: \(10017 characters\) /);
  });

  it('--json: the error object is cut alike, and parses', async () => {
    const r = await svc.run(['--json', 'webhooks', 'get', long]);
    expect(r.code).toBe(5);
    const error = JSON.parse(r.stderr).error as { message: string };
    expect(error.message.length).toBeLessThan(300);
    expect(error.message).toMatch(
      /^no route GET \/v1\/webhooks\/x{47}…x{39}: \(10014 characters\) a path segment is longer/,
    );
  });
});

describe('a control character in an id (attack24c F5)', () => {
  it.each([
    [
      ['roles', 'assign', 'a\nb', 'tenant_viewer', '--expires-in', '8h', '--justification', 'x'],
      'USER',
      '"a\\nb"',
      'U+000A',
    ],
    [['webhooks', 'get', 'wh_a\u0007x'], 'WEBHOOK', '"wh_a\\u0007x"', 'U+0007'],
  ])('%j: refused before it is sent, quoted and escaped', async (argv, name, shown, char) => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(argv);
    // Only the error's line: `--expires-in` warns of the test's fixed clock first.
    expect([r.code, r.stdout, r.stderr.split('\n').at(-2)]).toEqual([
      2,
      '',
      `error: ${name} ${shown} holds a control character (${char}) at ${char === 'U+000A' ? 2 : 5}: type the id again; svc did not send it`,
    ]);
    // Reads only (the platform's clock for --expires-in): the id itself is in no request.
    expect(await requestCount(svc.sandbox())).toBeLessThanOrEqual(before + 1);
  });
});
