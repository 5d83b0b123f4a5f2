/**
 * `svc api` where what it would show or call is not what the user can check: a request body that
 * is not JSON in the --debug trace (its secrets cannot be found to mask: only its size is shown),
 * and a path with dot segments, which a URL resolves into another endpoint (refused, nothing sent).
 */
import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

describe('svc api --debug: a request body that is not JSON', () => {
  it.each([
    ['a trailing comma', '{"name":"ci-client","client_secret":"s3cr3t-value-1234",}', 's3cr3t-value-1234'],
    ['an unclosed object', '{"name":"x", "password": "Hunter2Hunter2"', 'Hunter2Hunter2'],
    ['a form-like text', 'client_secret=s3cr3t-value-5678&name=x', 's3cr3t-value-5678'],
    ['YAML', 'name: x\npassword: Hunter2Hunter2\n', 'Hunter2'],
  ])('%s: only its size is traced, never its text', async (_name, body, secret) => {
    const r = await svc.run(['--debug', 'api', 'POST', '/v1/oauth/clients', '--input', '-'], {
      stdin: body,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain(secret);
    const size = Buffer.byteLength(body);
    expect(r.stderr).toMatch(
      new RegExp(
        `\\n> \\[${size} bytes not shown: not JSON( \\(the parser stopped at character \\d+\\))?, so a secret in it could not be masked\\]\\n`,
      ),
    );
  });

  it('a JSON body is still traced, its secrets masked', async () => {
    const r = await svc.run(['--debug', 'api', 'POST', '/_sandbox/x', '--input', '-'], {
      stdin: '{"name":"x","password":"Hunter2Hunter2"}',
    });
    expect(r.stderr).toContain('\n> {"name":"x","password":"[redacted]"}\n');
  });
});

describe('svc api: a path with dot segments', () => {
  it.each([
    ['/v1/rules/../reconciliations/rec_1', '..', '/v1/reconciliations/rec_1'],
    ['/v1/reconciliations/../roles/role_x', '..', '/v1/roles/role_x'],
    ['/v1/./me', '.', '/v1/me'],
    ['/v1/rules/%2e%2e/roles/r', '%2e%2e', '/v1/roles/r'],
    ['/v1/rules/.%2E/roles/r', '.%2E', '/v1/roles/r'],
    ['/v1/rules/%2E/x', '%2E', '/v1/rules/x'],
    ['v1/rules/..', '..', '/v1/'],
    ['/v1/rules\\..\\roles', '..', '/v1/roles'],
    ['/v1/rules/..?limit=1', '..', '/v1/'],
  ])('DELETE %s is refused (exit 2), nothing sent', async (path, segment, names) => {
    const before = await requestCount(svc.sandbox());
    expect(await svc.run(['api', 'DELETE', path])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: the path has a ${JSON.stringify(segment)} segment, which a URL resolves: it would call ${names}; give the path it names, without dot segments\n`,
    });
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  // The URL parser reads the path after a "#" as path (it becomes %23) and drops tabs and
  // newlines anywhere: these spellings reached /v1/roles/… (s11 review-a 1).
  it.each([
    ['/v1/rules#/../roles/role_x', '..', '/v1/roles/role_x'],
    ['/v1/rules#/%2e%2E/roles/role_x', '%2e%2E', '/v1/roles/role_x'],
    ['/v1/rules/%2E./roles/role_x', '%2E.', '/v1/roles/role_x'],
    ['/v1/rules/x#\\..\\roles', '..', '/v1/rules/roles'],
    ['/v1/rules/..;x/roles/role_x', '..;x', '/v1/rules/..;x/roles/role_x'],
    ['/v1/rules/.%2e;/roles/role_x', '.%2e;', '/v1/rules/.%2e;/roles/role_x'],
  ])('DELETE %s is refused (exit 2), nothing sent', async (path, segment, names) => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['api', 'DELETE', path]);
    const resolves = segment.includes(';')
      ? `which a server that drops ";" parameters reads as ".."`
      : 'which a URL resolves';
    const calls = segment.includes(';') ? '' : `: it would call ${names}`;
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: the path has a ${JSON.stringify(segment)} segment, ${resolves}${calls}; give the path it names, without dot segments\n`,
    });
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it.each([
    ['/v1/rules/.\t./roles/role_x', 'U+0009'],
    ['/v1/rules/.\n./roles/role_x', 'U+000A'],
    ['/v1/rules/.\r./roles/role_x', 'U+000D'],
    ['/v1/rules#/.\t./roles/role_x', 'U+0009'],
    ['/v1/me\u0000', 'U+0000'],
    ['/v1/me?q=a\tb', 'U+0009'],
  ])('%j has a control character: refused (exit 2), nothing sent', async (path, code) => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['api', 'DELETE', path]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: the path has a control character (${code}), which a URL drops or changes; remove it\n`,
    });
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it.each([['/v1/rules/..x'], ['/v1/rules/x..'], ['/v1/rules/...'], ['/v1/me?q=../x'], ['/v1/me#..']])(
    '%s has no dot segment: sent',
    async (path) => {
      const r = await svc.run(['api', 'GET', path]);
      expect(r.stderr).not.toContain('dot segment');
    },
  );
});
