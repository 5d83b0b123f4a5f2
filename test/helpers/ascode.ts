import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import type { Prompter } from '../../src/system/prompter.js';
import { call } from './sandbox.js';

/** Helpers of the svc export / plan / apply tests (issue 14). */

export const LABS = tenantId('acme-labs');
export const APAC = tenantId('acme-apac');
export const user = (n: number) => `usr_bulk_${String(n).padStart(6, '0')}`;

let keys = 0;

/** A platform call as the sandbox's admin in `tenant`; it must answer 2xx. */
export async function as(
  sandbox: Sandbox,
  tenant: string,
  method: string,
  path: string,
  body?: Record<string, unknown>,
) {
  const r = await call(sandbox, method, path, {
    token: sandbox.adminToken,
    tenant,
    ...(body === undefined
      ? {}
      : { body: method === 'POST' ? { ...body, idempotency_key: `ascode-${++keys}` } : body }),
  });
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body;
}

/** A tenant with one of each kind: role ops, its grant to user 1, a webhook and an OAuth client. */
export async function seedTenant(sandbox: Sandbox, tenant: string, tag: string) {
  const role = await as(sandbox, tenant, 'POST', '/v1/roles', {
    name: 'ops',
    description: 'Operations',
    permissions: ['rule.read'],
  });
  await as(sandbox, tenant, 'POST', `/v1/users/${user(1)}/roles`, {
    role_id: role.id,
    expires_at: '2031-01-01T00:00:00Z',
    justification: 'on call',
  });
  const webhook = await as(sandbox, tenant, 'POST', '/v1/webhooks', {
    url: `https://hooks.example.com/${tag}`,
    event_types: ['exception.created'],
    description: 'pager',
  });
  const client = await as(sandbox, tenant, 'POST', '/v1/oauth/clients', {
    name: 'portal',
    redirect_uris: ['https://portal.example.com/cb'],
    scopes: ['read:reconciliations'],
  });
  return { role: role.id as string, webhook: webhook.id as string, client: client.client_id as string };
}

/** Requests that change something (anything but GET), as the sandbox counted them so far. */
export async function writes(sandbox: Sandbox): Promise<number> {
  const stats = (await call(sandbox, 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([key]) => !key.startsWith('GET '))
    .reduce((sum, [, count]) => sum + count, 0);
}

export function writeFile(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/**
 * A prompter for `svc apply` that answers its confirmation yes and, at that moment, makes the
 * network lose every answer after the platform made the change: everything was read and planned,
 * every change is made, and svc hears of none (it does not retry).
 */
export function losingAnswersOnConfirm(sandbox: Sandbox): Prompter {
  return {
    confirm: async () => {
      sandbox.faults.update({ drop_rate: 1, phase: 'after' });
      return true;
    },
    input: async () => '',
    password: async () => '',
    select: async () => {
      throw new Error('no select');
    },
  };
}
