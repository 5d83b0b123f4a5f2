/**
 * `svc __complete KIND` (hidden), in-process: what the completion scripts offer at TAB time. The
 * scripts themselves run in real shells in test/e2e/completion.test.ts.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { held } from '../../helpers/signal-holds.js';

const svc = useSandboxContext();
const lines = (...values: string[]) => `${values.join('\n')}\n`;

describe('svc __complete', () => {
  beforeAll(async () => {
    for (const name of ['staging', 'prod']) {
      const r = await svc.run(['-p', name, 'config', 'set', 'base_url', 'https://example.com']);
      expect(r.code, r.stderr).toBe(0);
    }
  });

  it.each([
    ['profiles', 'sorted by name', lines('prod', 'staging')],
    [
      'tenants',
      'the slugs, then the ids, of the tenants the credential sees (either names a tenant)',
      lines(
        'acme-treasury',
        'acme-payments-eu',
        'acme-ledger-uk',
        'acme-apac',
        'acme-labs',
        '8ab23c1d-a27b-565a-ad8f-983ecf5fe016',
        '5c59a2be-2bbe-51f5-b7c7-86876c08b908',
        '279352e3-51f6-5b0c-9f13-4a5563f8a965',
        'ae4e8baa-d428-5958-ad5e-78c9ba79890d',
        'fbbe4d31-beac-5b48-a287-2d8bcd45003b',
      ),
    ],
    [
      'roles',
      'role names, built-in roles first',
      lines(
        'tenant_admin',
        'tenant_reviewer',
        'tenant_lead',
        'tenant_analyst',
        'tenant_rule_author',
        'tenant_ai_prompter',
        'tenant_compliance',
        'tenant_auditor',
        'tenant_viewer',
        'org_admin',
      ),
    ],
    ['nope', 'nothing for an unknown kind', ''],
  ])('%s: %s', async (kind, _what, stdout) => {
    expect(await svc.run(['__complete', kind])).toEqual({ code: 0, stdout, stderr: '' });
  });

  it('tenants, under the command’s signal: the deadline’s signal is left on it no longer (Node 20 kept it)', async () => {
    const signal = new AbortController().signal;
    const r = await svc.run(['__complete', 'tenants'], { signal });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('acme-treasury\n');
    expect(held(signal)).toEqual({ dependants: 0, listeners: 0 });
  });

  it('webhooks: the ids of the tenant’s webhooks, as the API lists them', async () => {
    const listed = await call(svc.sandbox(), 'GET', '/v1/webhooks', {
      token: svc.sandbox().adminToken,
      tenant: svc.env().SVC_TENANT!,
    });
    const ids = (listed.body.items as Array<{ id: string }>).map((w) => w.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(await svc.run(['__complete', 'webhooks'])).toEqual({ code: 0, stdout: lines(...ids), stderr: '' });
  });

  describe('the profile, tenant and base URL the command line names', () => {
    const LABS = tenantId('acme-labs');
    let labsWebhook: string;
    beforeAll(async () => {
      // A webhook in acme-labs only, and a custom role in acme-treasury only.
      const webhook = await svc.run([
        ...['--tenant', 'acme-labs', 'webhooks', 'create', '--url', 'https://example.com/labs'],
        ...['--event-type', 'exception.created', '--show-secret', '--json'],
      ]);
      expect(webhook.code, webhook.stderr).toBe(0);
      labsWebhook = JSON.parse(webhook.stdout).id;
      const role = await svc.run([
        'roles',
        'create',
        '--name',
        'treasury_only',
        '--permission',
        'exception.read',
      ]);
      expect(role.code, role.stderr).toBe(0);
      const r = await svc.run(['-p', 'labs', 'config', 'set', 'base_url', svc.sandbox().url]);
      expect(r.code, r.stderr).toBe(0);
      const t = await svc.run(['-p', 'labs', 'config', 'set', 'tenant', 'acme-labs']);
      expect(t.code, t.stderr).toBe(0);
    });

    it.each([
      ['before __complete', ['--tenant', 'acme-labs', '__complete', 'webhooks']],
      ['after the kind', ['__complete', 'webhooks', '--tenant', 'acme-labs']],
      ['as an id', ['--tenant', LABS, '__complete', 'webhooks']],
    ])('--tenant %s: that tenant’s webhooks', async (_where, argv) => {
      expect(await svc.run(argv)).toEqual({ code: 0, stdout: lines(labsWebhook), stderr: '' });
    });

    it('--tenant: that tenant’s roles (not the default tenant’s custom ones)', async () => {
      const treasury = await svc.run(['__complete', 'roles']);
      expect(treasury.stdout).toContain('\ntreasury_only\n');
      const labs = await svc.run(['--tenant', 'acme-labs', '__complete', 'roles']);
      expect(labs.code).toBe(0);
      expect(labs.stdout).toContain('tenant_admin\n');
      expect(labs.stdout).not.toContain('treasury_only');
    });

    it('-p: the profile’s base URL and tenant (with no environment to override them)', async () => {
      const env = { SVC_BASE_URL: undefined, SVC_TENANT: undefined };
      expect(await svc.run(['-p', 'labs', '__complete', 'webhooks'], { env })).toEqual({
        code: 0,
        stdout: lines(labsWebhook),
        stderr: '',
      });
      expect(await svc.run(['__complete', 'webhooks', '--profile', 'labs'], { env })).toEqual({
        code: 0,
        stdout: lines(labsWebhook),
        stderr: '',
      });
    });

    it('--base-url: that server (nothing from one that is not there)', async () => {
      expect(await svc.run(['--base-url', 'http://127.0.0.1:1', '__complete', 'roles'])).toEqual({
        code: 0,
        stdout: '',
        stderr: '',
      });
    });
  });

  describe('when the API does not answer', () => {
    let silent: Server;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      // Accepts connections and never answers.
      silent = createServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    it('prints nothing and exits 0 (a TAB press never shows an error)', async () => {
      const port = (silent.address() as { port: number }).port;
      // At most 1.5 s, or SVC_TIMEOUT when shorter (0.2 s here).
      expect(
        await svc.run(['__complete', 'tenants'], {
          env: { SVC_BASE_URL: `http://127.0.0.1:${port}`, SVC_TIMEOUT: '0.2' },
        }),
      ).toEqual({ code: 0, stdout: '', stderr: '' });
    });
  });

  it('is not in the help', async () => {
    const help = await svc.run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('\n  completion ');
    expect(help.stdout).not.toContain('__complete');
  });
});
