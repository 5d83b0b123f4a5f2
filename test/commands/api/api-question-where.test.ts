/**
 * attack29a F4: `svc api DELETE` (and the POST to an OAuth client's rotate-secret) asked only
 * `Send DELETE PATH?`. With SVC_TENANT or `-H X-Tenant-Id` it deleted in another tenant, with
 * `-H 'Authorization: Bearer …'` as another user, under that same bare question. It now names the
 * tenant as every verb's question does (`Acme Labs (acme-labs)`) and who acts when an -H
 * Authorization replaces the run's credential (never the token), as SVC_TOKEN's identity is said.
 */
import { describe, expect, it } from 'vitest';
import { parseApi, runApi } from '../../../src/commands/api/index.js';
import { ConfigStore } from '../../../src/config/store.js';
import { tenantId } from '../../../src/sandbox/seed.js';
import { ACME, call, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const LABS = tenantId('acme-labs');

/** The requests that change something the sandbox has answered (a question's GET /v1/me aside). */
async function changes(): Promise<number> {
  const stats = (await call(svc.sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([route]) => !/^(GET|HEAD) /.test(route))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** The question `svc api METHOD PATH` asks with these flags and settings, answered No. */
async function asked(
  method: string,
  path: string,
  flags: Record<string, unknown> = {},
  options: Parameters<typeof svc.context>[0] = {},
): Promise<string[]> {
  const { ctx, questions, stderr } = svc.context({ tty: true, answers: [false], ...options });
  const before = await changes();
  await expect(runApi(ctx, parseApi(method, path, flags))).rejects.toThrow('cancelled; nothing was changed');
  expect(stderr()).toBe('');
  expect(await changes()).toBe(before);
  return questions;
}

describe('svc api asks naming the tenant it acts in', () => {
  it('the run’s tenant (SVC_TENANT), by its display name and slug', async () => {
    expect(await asked('DELETE', '/v1/webhooks/wh_nonexist')).toEqual([
      'Send DELETE /v1/webhooks/wh_nonexist in Acme Treasury (acme-treasury)?',
    ]);
  });

  it('another tenant by --tenant (a slug) or SVC_TENANT', async () => {
    expect(
      await asked('DELETE', '/v1/webhooks/wh_nonexist', {}, { globals: { tenant: 'acme-labs' } }),
    ).toEqual(['Send DELETE /v1/webhooks/wh_nonexist in Acme Labs (acme-labs)?']);
    expect(await asked('DELETE', '/v1/webhooks/wh_nonexist', {}, { env: { SVC_TENANT: LABS } })).toEqual([
      'Send DELETE /v1/webhooks/wh_nonexist in Acme Labs (acme-labs)?',
    ]);
  });

  it('the tenant an -H X-Tenant-Id sends, over the run’s; y then deletes there', async () => {
    const made = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
      token: svc.sandbox().adminToken,
      tenant: LABS,
      body: {
        url: 'https://h.example/labs',
        event_types: ['webhook.test'],
        idempotency_key: 'labs-webhook-1',
      },
    });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    const header = { header: [`X-Tenant-Id: ${LABS}`] };
    expect(await asked('DELETE', `/v1/webhooks/${id}`, header)).toEqual([
      `Send DELETE /v1/webhooks/${id} in Acme Labs (acme-labs)?`,
    ]);
    const { ctx, questions } = svc.context({ tty: true, answers: [true] });
    await runApi(ctx, parseApi('DELETE', `/v1/webhooks/${id}`, header));
    expect(questions).toEqual([`Send DELETE /v1/webhooks/${id} in Acme Labs (acme-labs)?`]);
    const gone = await call(svc.sandbox(), 'GET', `/v1/webhooks/${id}`, {
      token: svc.sandbox().adminToken,
      tenant: LABS,
    });
    expect(gone.status).toBe(404);
  });

  it('a tenant the credential does not hold: named as sent', async () => {
    const other = '0b7e2c2e-0000-4000-8000-000000000001';
    expect(await asked('DELETE', '/v1/webhooks/wh_nonexist', { header: [`X-Tenant-Id: ${other}`] })).toEqual([
      `Send DELETE /v1/webhooks/wh_nonexist in tenant ${other}?`,
    ]);
  });

  it('the tenant a /v1/tenants/{id} path names, which is what is sent', async () => {
    expect(await asked('DELETE', `/v1/tenants/${LABS}/api-keys/key_x`)).toEqual([
      `Send DELETE /v1/tenants/${LABS}/api-keys/key_x in Acme Labs (acme-labs)?`,
    ]);
  });

  it("an OAuth client's rotate-secret alike", async () => {
    expect(
      await asked('POST', '/v1/oauth/clients/cli_x/rotate-secret', {}, { globals: { tenant: 'acme-labs' } }),
    ).toEqual([
      "Send POST /v1/oauth/clients/cli_x/rotate-secret in Acme Labs (acme-labs)? It rotates the client's secret: the current one stops working at once.",
    ]);
  });
});

describe('svc api asks naming who acts when -H Authorization gives the credential', () => {
  it('the user GET /v1/me answers for the header’s token, and the tenant among its own; never the token', async () => {
    const token = svc.sandbox().issueToken('usr_reviewer').token;
    const questions = await asked('DELETE', '/v1/webhooks/wh_nonexist', {
      header: [`Authorization: Bearer ${token}`],
    });
    expect(questions).toEqual([
      "Send DELETE /v1/webhooks/wh_nonexist in Acme Treasury (acme-treasury)? [as usr_reviewer from -H Authorization, not SVC_TOKEN's]",
    ]);
    expect(questions.join('')).not.toContain(token.slice(-12));
  });

  it("over a profile's own login (no SVC_TOKEN): says it is not the profile's login", async () => {
    const store = new ConfigStore(svc.env().SVC_CONFIG_DIR!);
    await store.setProfileValues('prod', { base_url: svc.sandbox().url });
    await store.setCredential('prod', {
      type: 'token',
      access_token: svc.sandbox().adminToken,
      obtained_at: new Date().toISOString(),
    });
    await store.setActiveProfile('prod');
    try {
      const token = svc.sandbox().issueToken('usr_reviewer').token;
      const questions = await asked(
        'DELETE',
        '/v1/webhooks/wh_nonexist',
        { header: [`Authorization: Bearer ${token}`] },
        { env: { SVC_TOKEN: undefined, SVC_BASE_URL: undefined } },
      );
      expect(questions).toEqual([
        'Send DELETE /v1/webhooks/wh_nonexist in Acme Treasury (acme-treasury)? [as usr_reviewer from -H Authorization, not the login of profile "prod"]',
      ]);
    } finally {
      await store.removeProfile('prod');
    }
  });

  // Without an answer of the platform's, the tenant is named as it is sent (its id).
  it('a token the platform refuses: the JWT’s subject, or "a bearer token"; the question is still asked', async () => {
    const expired = svc.sandbox().issueToken('usr_lead', { expiresInSeconds: -60 }).token;
    expect(
      await asked('DELETE', '/v1/webhooks/wh_nonexist', { header: [`Authorization: Bearer ${expired}`] }),
    ).toEqual([
      `Send DELETE /v1/webhooks/wh_nonexist in tenant ${ACME}? [as usr_lead from -H Authorization, not SVC_TOKEN's]`,
    ]);
    const opaque = `svc_sk_${'q9'.repeat(16)}`;
    const questions = await asked('DELETE', '/v1/webhooks/wh_nonexist', {
      header: [`Authorization: Bearer ${opaque}`],
    });
    expect(questions).toEqual([
      `Send DELETE /v1/webhooks/wh_nonexist in tenant ${ACME}? [as a bearer token from -H Authorization, not SVC_TOKEN's]`,
    ]);
  });

  it('another scheme: not read with, said as "the credential"', async () => {
    const questions = await asked('DELETE', '/v1/webhooks/wh_nonexist', {
      header: ['Authorization: Basic dXNlcjpzM2NyM3Q='],
    });
    expect(questions).toEqual([
      `Send DELETE /v1/webhooks/wh_nonexist in tenant ${ACME}? [as the credential from -H Authorization, not SVC_TOKEN's]`,
    ]);
    expect(questions.join('')).not.toContain('dXNlcjpzM2NyM3Q');
  });
});
