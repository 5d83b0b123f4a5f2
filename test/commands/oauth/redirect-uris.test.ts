/**
 * Redirect URIs the platform refuses at registration, as `svc oauth create` and `oauth update`
 * report them: a wildcard host (matched only literally, it could never work) and one URI in two
 * spellings (WHATWG URL writes them alike: scheme and host case, the default port). One line
 * each, naming the URIs and the fix; nothing is created or changed.
 */
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const create = (name: string) => [
  'oauth',
  'create',
  '--name',
  name,
  '--scope',
  'read:exceptions',
  '--show-secret',
];
const uris = (...values: string[]) => values.flatMap((uri) => ['--redirect-uri', uri]);
const line = (message: string) =>
  new RegExp(
    `^error: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(HTTP 400, invalid_request, request req_[0-9a-f]+\\)\\n$`,
  );

describe('redirect URIs the platform refuses', () => {
  it.each([
    [
      uris('https://*.example.com/callback'),
      '--redirect-uri "https://*.example.com/callback" has a wildcard in its host: wildcards are not supported; register each redirect URI',
    ],
    [
      uris('https://v.example/cb', 'HTTPS://V.EXAMPLE/cb'),
      '--redirect-uri "HTTPS://V.EXAMPLE/cb" is redirect_uris.0 "https://v.example/cb" spelled another way (both are https://v.example/cb); register each redirect URI once',
    ],
    [
      uris('https://v.example/cb', 'https://v.example:443/cb'),
      '--redirect-uri "https://v.example:443/cb" is redirect_uris.0 "https://v.example/cb" spelled another way (both are https://v.example/cb); register each redirect URI once',
    ],
    [
      uris('https://v.example/cb', 'https://v.example/cb'),
      '--redirect-uri "https://v.example/cb" repeats redirect_uris.0; register each redirect URI once',
    ],
  ])('oauth create %j: exit 2, one line, no client', async (args, message) => {
    const r = await svc.run([...create('uris'), ...args]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(line(message));
    const listed = await svc.run(['oauth', 'ls', '--json']);
    expect(JSON.parse(listed.stdout).map((c: { name: string }) => c.name)).not.toContain('uris');
  });

  it('oauth update: the same rules, the client unchanged', async () => {
    const created = await svc.run([...create('kept'), ...uris('https://k.example/cb'), '--json']);
    const id = JSON.parse(created.stdout).client_id;
    const r = await svc.run(['oauth', 'update', id, ...uris('https://k.example/cb', 'https://K.example/cb')]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(
      line(
        '--redirect-uri "https://K.example/cb" is redirect_uris.0 "https://k.example/cb" spelled another way (both are https://k.example/cb); register each redirect URI once',
      ),
    );
    const got = await svc.run(['oauth', 'get', id, '--json']);
    expect(JSON.parse(got.stdout).redirect_uris).toEqual(['https://k.example/cb']);
  });
});
