/**
 * Commas in repeatable flags (attack26a F7): `oauth create --redirect-uri a,b` registered ONE
 * redirect URI holding a comma; `users ls --id a,b` matched no user, exit 0. Where a comma cannot
 * belong to one value (an id; in a redirect URI, before another URI) the value is refused, exit 2,
 * with the fix: the flag once per value (kit.ts refuseJoinedValues). Nothing is sent.
 */

import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();

describe('several values joined by commas in one flag', () => {
  it('users ls --id a,b: refused before any request, naming the fix', async () => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['users', 'ls', '--id', 'usr_admin,usr_viewer']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: --id "usr_admin,usr_viewer" is 2 values joined by commas; give each its own --id: --id usr_admin --id usr_viewer\n',
    ]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('webhooks replay W dlq_a,dlq_b: refused before any request, each id its own argument (attack27a F7)', async () => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['webhooks', 'replay', 'wh_x', 'dlq_a,dlq_b', 'dlv_c']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: DELIVERY "dlq_a,dlq_b" is 2 values joined by commas; give each as its own argument: dlq_a dlq_b; nothing was sent\n',
    ]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('oauth create and update --redirect-uri a,b: refused; a comma inside one URI is kept', async () => {
    const before = await requestCount(svc.sandbox());
    const argv = ['oauth', 'create', '--name', 'x', '--scope', 'read:exceptions', '--show-secret'];
    const r = await svc.run([...argv, '--redirect-uri', 'https://example.com/cb,https://example.com/cb2']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: --redirect-uri "https://example.com/cb,https://example.com/cb2" is 2 values joined by commas; ' +
        'give each its own --redirect-uri: --redirect-uri https://example.com/cb --redirect-uri https://example.com/cb2\n',
    ]);
    expect(await requestCount(svc.sandbox())).toBe(before);
    const update = await svc.run([
      'oauth',
      'update',
      'cli_x',
      '--redirect-uri',
      'https://a.example/cb, http://127.0.0.1/cb',
    ]);
    expect([update.code, update.stderr]).toEqual([
      2,
      'error: --redirect-uri "https://a.example/cb, http://127.0.0.1/cb" is 2 values joined by commas; ' +
        'give each its own --redirect-uri: --redirect-uri https://a.example/cb --redirect-uri http://127.0.0.1/cb\n',
    ]);
    const kept = await svc.run([...argv, '--redirect-uri', 'https://example.com/cb?a=1,2', '--json']);
    expect([kept.code, JSON.parse(kept.stdout).redirect_uris]).toEqual([0, ['https://example.com/cb?a=1,2']]);
    // review26b L1: URLs joined by commas inside a query are that query's value, one URI.
    const inQuery = 'https://app.example.com/cb?return=https://app.example.com/a,https://app.example.com/b';
    const one = await svc.run([...argv, '--redirect-uri', inQuery, '--json']);
    expect([one.code, one.stderr, JSON.parse(one.stdout || '{}').redirect_uris]).toEqual([0, '', [inQuery]]);
  });
});
