/**
 * Session 15 (attack15 F4): what svc prints of a failure a webhook.read holder without
 * exception.read reads — the cause, the status, and that the target's answer body is withheld
 * and which permission shows it — never the body, which echoed the event's data.
 */
import { describe, expect, it } from 'vitest';
import { ACME, adminGrant, call, useSandboxContext } from '../../helpers/sandbox.js';
import { startTarget } from '../../helpers/targets.js';
import { settle } from '../../helpers/webhooks.js';

const svc = useSandboxContext({ users: 2 });
const IBAN = 'GB29NWBK60161331926819';
const WITHHELD =
  "4xx_client_error: the target answered 422 Unprocessable Entity (the answer's body is withheld: it may echo the event's data; exception.read shows it)";

/** A dead-lettered exception.created delivery whose target answered 422 echoing its data, and a webhook.read-only token. */
async function deadLetterAndReader() {
  const sandbox = svc.sandbox();
  const target = await startTarget((_n, request) => ({
    status: 422,
    body: JSON.stringify({ error: 'rejected', data: JSON.parse(request.body.toString()).data }),
  }));
  const admin = { token: sandbox.adminToken, tenant: ACME };
  const made = await call(sandbox, 'POST', '/v1/webhooks', {
    ...admin,
    body: { url: target.url, event_types: ['exception.created'], max_attempts: 1, idempotency_key: 'aw-1' },
  });
  expect(made.status, made.text).toBe(201);
  await call(sandbox, 'POST', '/_sandbox/webhooks/events', {
    body: { type: 'exception.created', webhook_id: made.body.id, data: { iban: IBAN } },
  });
  await settle(sandbox);
  const role = await call(sandbox, 'POST', '/v1/roles', {
    ...admin,
    body: { name: 'wh-reader', permissions: ['webhook.read'], idempotency_key: 'aw-2' },
  });
  await adminGrant(sandbox, ACME, 'usr_bulk_000001', role.body.id);
  const token = sandbox.issueToken('usr_bulk_000001', { expiresInSeconds: 3600 }).token;
  const entry = (await call(sandbox, 'GET', `/v1/webhooks/${made.body.id}/dlq`, admin)).body.items[0];
  return { webhook: made.body.id as string, entry, env: { SVC_TOKEN: token } };
}

describe('a failure whose answer body is withheld, as svc prints it', () => {
  it('deliveries get, dlq get: the error line says the body is withheld and which permission shows it', async () => {
    const { webhook, entry, env } = await deadLetterAndReader();
    const get = await svc.run(['webhooks', 'deliveries', 'get', webhook, entry.delivery_id], { env });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout.split('\n').filter((l) => l.includes('withheld'))).toEqual([
      `error\t${WITHHELD}`,
      expect.stringMatching(
        new RegExp(`^1\\t\\S+\\t422\\t${WITHHELD.replace(/[()]/g, '\\$&')}\\t\\d+\\t\\d+$`),
      ),
    ]);
    const dlq = await svc.run(['webhooks', 'dlq', 'get', webhook, entry.id], { env });
    expect(dlq.code, dlq.stderr).toBe(0);
    expect(dlq.stdout).toContain(`\nerror\t${WITHHELD}\ncause\t4xx_client_error\nremedy\t`);
    for (const argv of [
      ['webhooks', 'deliveries', webhook, '--json'],
      ['webhooks', 'dlq', 'ls', webhook, '--json'],
    ]) {
      const r = await svc.run(argv, { env });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)[0].last_error).toBe(WITHHELD);
    }
    expect(`${get.stdout}${dlq.stdout}`).not.toContain(IBAN);
  });
});
