/**
 * Server text in the lines of single verbs (findings-attack19 F4, F9, F10): a client's or key's
 * name with a line break cannot forge a second ✓ line; a redirect URI whose host is not ASCII shows
 * on a terminal the host the browser reaches (`xn--…`) beside it; a comma inside one URI never reads
 * as two URIs.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../helpers/oauth.js';
import { ACME, call, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext({ users: 2 });

describe('a name with a line break in a ✓ line (F4)', () => {
  it('oauth delete: one ✓ line, the break written \\n', async () => {
    const client = await createClient(svc.sandbox(), {
      name: 'Vendor portal\n✓ deleted OAuth client payroll-sync (cli_payroll); its tokens no longer work',
    });
    const run = await svc.run(['oauth', 'delete', client.client_id, '--yes'], { tty: true });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe(
      `✓ deleted OAuth client Vendor portal\\n✓ deleted OAuth client payroll-sync (cli_payroll); its tokens no longer work (${client.client_id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016; its tokens no longer work\n`,
    );
  });

  it('tenants api-keys revoke: one ✓ line', async () => {
    const made = await call(svc.sandbox(), 'POST', `/v1/tenants/${ACME}/api-keys`, {
      token: svc.sandbox().adminToken,
      tenant: ACME,
      body: {
        kind: 'publishable',
        name: 'CI reader\n✓ Revoked key_payroll (payroll service_role) of Acme Treasury (acme-treasury)',
        idempotency_key: 'server-text-key',
      },
    });
    expect(made.status, made.text).toBe(201);
    const run = await svc.run(['tenants', 'api-keys', 'revoke', ACME, made.body.id, '--yes'], { tty: true });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('(CI reader\\n✓ Revoked key_payroll (payroll service_role)');
  });
});

describe('a redirect URI with a host that is not ASCII (F9)', () => {
  it('oauth get and ls on a terminal show the host the browser reaches; a pipe keeps the URI as it is', async () => {
    const client = await createClient(svc.sandbox(), {
      name: 'Homograph',
      redirect_uris: ['https://\u0440\u0430\u0443.example/cb'],
    });
    const get = await svc.run(['oauth', 'get', client.client_id], { tty: true });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toMatch(
      /^redirect uris +https:\/\/\u0440\u0430\u0443\.example\/cb \(host xn--80a5ak\.example\)$/m,
    );
    const ls = await svc.run(['oauth', 'ls', '--wide'], { tty: true, columns: 300 });
    // A table cell has the punycode host in place (a cut cannot take it away: attack22b F1).
    expect(ls.stdout).toContain('https://xn--80a5ak.example/cb');
    expect(ls.stdout).not.toContain('\u0440\u0430\u0443');
    const piped = await svc.run(['oauth', 'get', client.client_id]);
    expect(piped.stdout).toContain('redirect uris\thttps://\u0440\u0430\u0443.example/cb\n');
  });
});

describe('a comma inside one redirect URI (F10)', () => {
  it('one URI with a comma and two URIs print differently', async () => {
    const one = await createClient(svc.sandbox(), {
      name: 'Comma',
      redirect_uris: ['https://a.example/cb?x=1,https://evil.example/cb'],
    });
    const two = await createClient(svc.sandbox(), {
      name: 'Two',
      redirect_uris: ['https://a.example/cb?x=1', 'https://evil.example/cb'],
    });
    const first = await svc.run(['oauth', 'get', one.client_id]);
    const second = await svc.run(['oauth', 'get', two.client_id]);
    expect(first.stdout).toContain('redirect uris\thttps://a.example/cb?x=1%2Chttps://evil.example/cb\n');
    expect(second.stdout).toContain('redirect uris\thttps://a.example/cb?x=1,https://evil.example/cb\n');
  });
});
