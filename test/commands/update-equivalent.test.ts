/**
 * An update whose values are only another spelling of what is stored (review-b s8 4): the
 * platform changes nothing, so svc must not say "✓ updated". svc compares URLs as WHATWG URL
 * writes them (what the sandbox stores) before sending, and in any case compares the answer with
 * the record it read before: a server that normalises in a way svc does not know still gets a
 * true "nothing changed". Webhooks, OAuth clients and roles alike.
 */

import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { answers, type HostileServer, hostileEnv, useHostileServer } from '../helpers/hostile.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { admin } from '../helpers/webhooks.js';

const svc = useSandboxContext();
const server = useHostileServer();
const dirs = useTempDirs();

const audit = async (id: string) =>
  (await admin(svc.sandbox(), 'GET', `/v1/audit_trail?target_id=${id}&limit=100`)).body.items.length;

/** A server that stores `record` and answers every GET and PATCH with it, unchanged. */
async function unchanging(record: unknown): Promise<{
  s: HostileServer;
  run: (argv: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;
}> {
  const s = await server();
  s.answer(answers.json(200, record));
  // The run's tenant is the record's: svc refuses an answer about another tenant (review25b M1).
  const tenant = (record as { tenant_id?: string }).tenant_id;
  const env = { ...dirs(), ...hostileEnv(s), ...(tenant ? { SVC_TENANT: tenant } : {}) };
  return { s, run: (argv) => runInProcess(argv, env) };
}

describe('svc webhooks update with another spelling of the stored URL', () => {
  it.each([['http://127.0.0.1:80/w3'], ['HTTP://127.0.0.1/w3'], ['http://127.0.0.1/./w3']])(
    '%s: "nothing changed … already points at http://127.0.0.1/w3", exit 0, nothing sent',
    async (url) => {
      const made = await admin(svc.sandbox(), 'POST', '/v1/webhooks', {
        url: 'http://127.0.0.1:9/w3',
        event_types: ['exception.created'],
      });
      const id = made.body.id as string;
      expect(
        (await admin(svc.sandbox(), 'PATCH', `/v1/webhooks/${id}`, { url: 'http://127.0.0.1/w3' })).status,
      ).toBe(200);
      const entries = await audit(id);
      const r = await svc.run(['webhooks', 'update', id, '--url', url]);
      expect([r.code, r.stderr]).toEqual([
        0,
        `nothing changed: webhook ${id} already points at http://127.0.0.1/w3\n`,
      ]);
      expect(await audit(id)).toBe(entries);
    },
  );

  it('a server that normalises otherwise (a trailing slash) answers the record unchanged: "nothing changed"', async () => {
    const made = await admin(svc.sandbox(), 'POST', '/v1/webhooks', {
      url: 'https://h.example/a',
      event_types: ['exception.created'],
    });
    const { s, run } = await unchanging(made.body);
    const r = await run(['webhooks', 'update', made.body.id, '--url', 'https://h.example/a/']);
    expect(s.seen.map((q) => q.method)).toEqual(['GET', 'PATCH']);
    expect([r.code, r.stderr]).toEqual([
      0,
      `nothing changed: webhook ${made.body.id} already points at https://h.example/a\n`,
    ]);
    expect(r.stdout).toMatch(new RegExp(`^id\\t${made.body.id}\\n`));
  });
});

describe('svc oauth update that changes nothing', () => {
  async function client(): Promise<Record<string, unknown>> {
    const r = await admin(svc.sandbox(), 'POST', '/v1/oauth/clients', {
      name: 'Vendor',
      redirect_uris: ['https://vendor.example/cb', 'https://vendor.example/cb2'],
      scopes: ['read:exceptions'],
      token_lifetime_seconds: 600,
    });
    expect(r.status).toBe(201);
    const { client_secret: _, ...rest } = r.body;
    return rest;
  }

  it.each([
    [['--name', 'Vendor'], 'is already named Vendor'],
    [['--scope', 'read:exceptions'], 'already has exactly the scopes read:exceptions'],
    [
      ['--redirect-uri', 'https://vendor.example/cb2', '--redirect-uri', 'https://vendor.example/cb'],
      'already has exactly the redirect URIs https://vendor.example/cb2, https://vendor.example/cb',
    ],
    [
      ['--token-lifetime', '600', '--pkce'],
      'already has a token lifetime of 600 s and already requires PKCE',
    ],
  ])('%j: "nothing changed", exit 0, no audit entry', async (flags, said) => {
    const { client_id: id } = (await client()) as { client_id: string };
    const entries = await audit(id);
    const r = await svc.run(['oauth', 'update', id, ...flags]);
    expect([r.code, r.stderr]).toEqual([0, `nothing changed: OAuth client ${id} ${said}\n`]);
    expect(r.stdout).toMatch(new RegExp(`^client id\\t${id}\\n`));
    expect(await audit(id)).toBe(entries);
  });

  it.each([
    [
      '--redirect-uri',
      'https://vendor.example/cb',
      'redirect_uris',
      'the redirect URI https://vendor.example/cb2',
      ['https://vendor.example/cb'],
    ],
    [
      '--grant-type',
      'authorization_code',
      'grant_types',
      'the grant type refresh_token',
      ['authorization_code'],
    ],
  ])(
    'a value given twice (%s) is one: the list that has more changes, never "already has exactly"',
    async (flag, value, field, removed, after) => {
      const { client_id: id } = (await client()) as { client_id: string };
      const r = await svc.run(['oauth', 'update', id, flag, value, flag, value]);
      expect([r.code, r.stderr]).toEqual([
        0,
        `✓ updated OAuth client ${id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (${field}); removed ${removed}\n`,
      ]);
      const now = await admin(svc.sandbox(), 'GET', `/v1/oauth/clients/${id}`);
      expect(now.body[field]).toEqual(after);
    },
  );

  it('a server that answers the client unchanged: "nothing changed", not "✓ updated"', async () => {
    const record = await client();
    const { s, run } = await unchanging(record);
    const r = await run(['oauth', 'update', record.client_id as string, '--name', 'vendor']);
    expect(s.seen.map((q) => q.method)).toEqual(['GET', 'PATCH']);
    expect([r.code, r.stderr]).toEqual([
      0,
      `nothing changed: OAuth client ${record.client_id} is already named Vendor\n`,
    ]);
  });
});

describe('svc roles update that a server answers unchanged', () => {
  it('says "nothing changed", not "✓ updated"', async () => {
    const made = await admin(svc.sandbox(), 'POST', '/v1/roles', {
      name: 'fx-equivalent',
      permissions: ['exception.read'],
    });
    expect(made.status).toBe(201);
    const { s, run } = await unchanging(made.body);
    const r = await run(['roles', 'update', made.body.id, '--name', 'FX-equivalent']);
    expect(s.seen.map((q) => q.method)).toEqual(['GET', 'PATCH']);
    expect([r.code, r.stderr]).toEqual([
      0,
      `nothing changed: role fx-equivalent (${made.body.id}) already is named fx-equivalent\n`,
    ]);
  });
});
