import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_CODE_GRANT } from '../../src/api/constants.js';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { DEMO_ORG, tenantId } from '../../src/sandbox/seed.js';
import { runInProcess } from '../helpers/context.js';
import { consent } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';
import { type Prism, startPrism } from '../helpers/tools.js';

// Stoplight Prism as a proxy in front of the sandbox checks every request svc sends and every
// answer the sandbox gives against docs/openapi.json (issue 10): the CLI, the sandbox and the
// published contract agree when it logs no violation.
const sandbox = useSandbox();
const TREASURY = tenantId('acme-treasury');
const dirs: string[] = [];
let prism: Prism;
let env: Record<string, string>;

beforeAll(async () => {
  prism = await startPrism('proxy', sandbox().url);
  const dir = (name: string) => {
    const path = tempDir(`svc-prism-${name}-`);
    dirs.push(path);
    return path;
  };
  env = {
    SVC_BASE_URL: prism.url,
    SVC_TOKEN: sandbox().adminToken,
    SVC_TENANT: TREASURY,
    SVC_CONFIG_DIR: dir('config'),
    SVC_STATE_DIR: dir('state'),
    SVC_CACHE_DIR: dir('cache'),
    NO_COLOR: '1',
  };
});
afterAll(async () => {
  await prism?.stop();
  for (const path of dirs) rmSync(path, { recursive: true, force: true });
});

async function svc(args: string[], expectedCode = 0): Promise<any> {
  const r = await runInProcess(args, env, { now: Date.now() });
  expect(r.code, `svc ${args.join(' ')}\n${r.stderr}`).toBe(expectedCode);
  return r.stdout.trim() && args.includes('--json') ? JSON.parse(r.stdout) : r.stdout;
}

describe('prism proxy in front of the sandbox', () => {
  it('sees no violation while svc runs its commands through it', async () => {
    await svc(['me', '--json']);
    await svc(['tenants', 'ls', '--json']);
    await svc(['tenants', 'ls', '--all', '--org', DEMO_ORG, '--limit', '2', '--json']);
    await svc(['tenants', 'ls', '--tier', 'pro', '--json']);

    const key = await svc([
      'tenants',
      'api-keys',
      'create',
      TREASURY,
      '--kind',
      'publishable',
      '--name',
      'dash',
      '--json',
    ]);
    await svc(['tenants', 'api-keys', 'ls', TREASURY, '--json']);
    await svc(['tenants', 'api-keys', 'revoke', TREASURY, key.id, '--yes']);

    const client = await svc([
      'oauth',
      'create',
      '--name',
      'Vendor portal',
      '--redirect-uri',
      'https://vendor.example/callback',
      '--scope',
      'read:exceptions',
      '--show-secret',
      '--json',
    ]);
    await svc(['oauth', 'rotate-secret', client.client_id, '--yes', '--show-secret', '--json']);
    await svc(['oauth', 'ls', '--json']);
    await svc(['oauth', 'get', client.client_id, '--json']);
    await svc(['oauth', 'update', client.client_id, '--description', 'updated', '--json']);
    await svc(['oauth', 'delete', client.client_id, '--yes']);

    await svc(['roles', 'ls', '--json']);
    await svc(['roles', 'get', 'tenant_viewer', '--json']);
    const role = await svc([
      'roles',
      'create',
      '--name',
      'fx-desk',
      '--permission',
      'exception.read',
      '--json',
    ]);
    await svc(['roles', 'update', 'fx-desk', '--add-permission', 'exception.write', '--json']);
    await svc([
      'roles',
      'assign',
      'usr_viewer',
      'fx-desk',
      '--expires-in',
      '1h',
      '--justification',
      'proxy run',
      '--json',
    ]);
    await svc(['roles', 'assignments', 'usr_viewer', '--include-ended', '--json']);
    await svc([
      'roles',
      'assign',
      'usr_viewer',
      'fx-desk',
      '--extend',
      '--expires-in',
      '7d',
      '--justification',
      'proxy',
      '--json',
    ]);
    await svc(['roles', 'holders', role.id, '--json']);
    await svc(['roles', 'assignments', '--role', 'fx-desk', '--json']);
    await svc(['roles', 'permissions', '--json']);
    await svc(['audit', 'ls', '--action', 'role', '--limit', '3', '--json']);
    await svc(['roles', 'revoke', 'usr_viewer', 'fx-desk', '--yes']);
    await svc(['roles', 'delete', 'fx-desk', '--yes']);

    for (const surface of ['accounts', 'reconciliations', 'exceptions', 'rules', 'evidence_packs']) {
      const record = await svc([
        'records',
        'create',
        surface,
        '--data',
        '{"name":"March close","n":1}',
        '--json',
      ]);
      await svc(['records', 'ls', surface, '--all', '--json']);
      await svc(['records', 'get', surface, record.id, '--json']);
      await svc(['records', 'update', surface, record.id, '--data', '{"n":2,"name":null}', '--json']);
      await svc(['records', 'delete', surface, record.id, '--yes']);
    }
    await svc(['records', 'ls', 'audit_trail', '--all', '--json']);

    const webhook = SEEDED_WEBHOOKS.exceptions;
    await svc(['webhooks', 'ls', '--json']);
    await svc(['webhooks', 'deliveries', webhook, '--json']);
    await svc(['webhooks', 'deliveries', webhook, '--status', 'failed', '--limit', '2', '--json']);
    const dlq = await svc(['webhooks', 'dlq', webhook, '--all', '--json']);
    await svc(['webhooks', 'replay', webhook, dlq[0].delivery_id, '--json']);
    // The seeded webhook's target refuses connections: the test event is sent, and fails (exit 1).
    await svc(['webhooks', 'test', webhook, '--json'], 1);
    await svc(['api', 'GET', '/v1/audit_trail']);
    const made = await svc([
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:9/proxy',
      '--event-type',
      'webhook.test',
      '--show-secret',
      '--json',
    ]);
    await svc(['webhooks', 'get', made.id, '--json']);
    await svc(['webhooks', 'update', made.id, '--description', 'proxy', '--json']);
    await svc(['webhooks', 'rotate-secret', made.id, '--show-secret', '--json']);
    await svc(['sandbox', 'target', made.id, '--fail', '503', '--json']);
    const sent = await svc(['sandbox', 'trigger', 'webhook.test', '--webhook', made.id, '--json']);
    await svc(['webhooks', 'deliveries', 'get', made.id, sent.events[0].delivery_ids[0], '--json']);
    await svc(['webhooks', 'deliveries', 'get', made.id, sent.events[0].delivery_ids[0], '--payload']);
    await svc(['webhooks', 'dlq', 'get', webhook, dlq[0].id, '--json']);
    await svc(['webhooks', 'delete', made.id, '--yes']);
    const entry = (await svc(['audit', 'ls', '--limit', '1', '--json']))[0];
    await svc(['audit', 'get', entry.id, '--json']);
    await svc(['api', 'GET', `/v1/webhooks/${webhook}/dlq/${dlq[0].id}`]);

    expect(prism.violations()).toEqual([]);
    expect(prism.log()).toMatch(/upstream call to \/v1\/roles has returned 201/);
  });

  // conform16 #6: the device consent form had no request body in the document, so a validating
  // proxy refused it (415) and the device polled until its code expired.
  it('passes the device consent form, and the device is signed in', async () => {
    const form = (path: string, params: Record<string, string>) =>
      fetch(`${sandbox().url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: 'svc-cli', ...params }).toString(),
      });
    const seen = prism.violations().length;
    const codes: any = await (
      await form('/v1/oauth/device_authorization', { scope: 'read:exceptions' })
    ).json();
    const page = await consent(`${prism.url}/oauth/device?user_code=${codes.user_code}`);
    expect(page.status).toBe(200);
    const token = await form('/v1/oauth/token', {
      grant_type: DEVICE_CODE_GRANT,
      device_code: codes.device_code,
    });
    expect(token.status).toBe(200);
    expect(prism.violations().slice(seen)).toEqual([]);
  });

  // conform16 #1: the dead-letters control answered 201 where the document declared only 200.
  it('passes the dead-letters test control', async () => {
    const seen = prism.violations().length;
    const answer = await fetch(`${prism.url}/_sandbox/webhooks/dead-letters`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ webhook_id: SEEDED_WEBHOOKS.exceptions, count: 1 }),
    });
    expect(answer.status).toBe(201);
    expect(await answer.json()).toMatchObject({ count: 1, summary: { failed: expect.any(Number) } });
    expect(prism.violations().slice(seen)).toEqual([]);
  });
});
