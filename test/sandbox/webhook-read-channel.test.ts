import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../src/api/time.js';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { codeTokens, createClient } from '../helpers/oauth.js';
import { call, useGrantRules } from '../helpers/sandbox.js';

// Session 13 (escalate13 F1, F3, F4): webhook.manage / webhook.read were a read channel past the
// permission model — a holder without exception.read subscribed to exception.* and received the
// data, kept receiving after their just-in-time grant ended, read old payloads, re-pointed an
// admin's webhook and replayed its dead letters to their own host; webhooks made through a
// third-party OAuth client's token or a service-role key kept delivering after the client was
// deleted or the key revoked; replays and discards left no audit entry.
const { sandbox, TREASURY, key, user, admin, as, customRole, refusal } = useGrantRules('read-channel');

const TARGET = 'http://127.0.0.1:9/holder';
const KINDS = ['exception.created', 'exception.sla.breached', 'reconciliation.completed'];
const SEEDED = SEEDED_WEBHOOKS.exceptions;

async function grant(userId: string, roleId: string, expiresAt?: string) {
  const r = await call(sandbox(), 'POST', `/v1/users/${userId}/roles`, {
    ...admin(),
    body: { role_id: roleId, idempotency_key: key(), ...(expiresAt ? { expires_at: expiresAt } : {}) },
  });
  expect(r.status, r.text).toBe(201);
}

const createHook = (caller: { token: string; tenant: string }, eventTypes = KINDS, url = TARGET) =>
  call(sandbox(), 'POST', '/v1/webhooks', {
    ...caller,
    body: { url, event_types: eventTypes, idempotency_key: key() },
  });

/** Emits one event of a kind to the tenant; the number of deliveries made. */
async function emitted(type = 'exception.created'): Promise<number> {
  const r = await call(sandbox(), 'POST', '/_sandbox/webhooks/events', {
    body: { type, tenant_id: TREASURY },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.deliveries;
}

const deliveriesTo = (webhookId: string) => sandbox().state.webhooks.deliveriesOf(webhookId).length;
const inMinutes = (minutes: number) => isoSeconds(sandbox().state.clock.now() + minutes * 60_000);
const advance = (seconds: number) =>
  call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: seconds } });
const getHook = async (id: string) => (await call(sandbox(), 'GET', `/v1/webhooks/${id}`, admin())).body;

let hookManagers: Promise<{ id: string }> | undefined;
/** A role with webhook.manage and webhook.read only, made once. */
const managers = async () => {
  hookManagers ??= customRole('hookmgr', ['webhook.manage', 'webhook.read']);
  return (await hookManagers).id;
};

describe('choosing where event data goes takes the permission that reads it, held without an end date', () => {
  it('webhook.manage without exception.read: creating an exception webhook is 403 naming what is lacking', async () => {
    await grant(user(1), await managers());
    const before = sandbox().state.webhooks.list(TREASURY).length;
    const r = await createHook(as(user(1)));
    expect(refusal(r)).toEqual([
      403,
      'insufficient_permission',
      'creating a webhook sends event data to its URL, so it takes the permission that reads that data; you lack ' +
        'exception.read (exception.created, exception.sla.breached), reconciliation.read (reconciliation.completed): ' +
        'have someone who holds them do it',
    ]);
    expect(sandbox().state.webhooks.list(TREASURY).length).toBe(before);
    // webhook.test carries no tenant data: that much webhook.manage may choose.
    expect((await createHook(as(user(1)), ['webhook.test'])).status).toBe(201);
  });

  it('a just-in-time reader cannot turn the grant into a standing channel', async () => {
    await grant(user(2), await managers());
    await grant(user(2), 'tenant_viewer', inMinutes(30));
    const r = await createHook(as(user(2)));
    expect(r.status, r.text).toBe(403);
    expect(r.body.error.code).toBe('insufficient_permission');
    expect(r.body.error.message).toMatch(
      /^a webhook is a standing channel, like an API key: creating a webhook takes the permission that reads its data held without an end date, and you hold exception\.read \(exception\.created, exception\.sla\.breached\), reconciliation\.read \(reconciliation\.completed\) only until \S+Z; have someone who holds them without an end date do it$/,
    );
  });

  it('a webhook delivers only while its owner holds its read permissions: it shows disabled, with the reason', async () => {
    await grant(user(3), await managers());
    await grant(user(3), 'tenant_viewer');
    const made = await createHook(as(user(3)));
    expect(made.status, made.text).toBe(201);
    const id = made.body.id;
    await emitted();
    expect(deliveriesTo(id)).toBe(1);

    // The viewer grant is wound down to just-in-time, then ends.
    const end = inMinutes(10);
    const patch = await call(sandbox(), 'PATCH', `/v1/users/${user(3)}/roles/tenant_viewer`, {
      ...admin(),
      body: { expires_at: end, justification: 'wind down' },
    });
    expect(patch.status, patch.text).toBe(200);
    await emitted();
    expect(deliveriesTo(id)).toBe(2);
    await advance(11 * 60);
    await emitted();
    expect(deliveriesTo(id)).toBe(2);
    const hook = await getHook(id);
    expect([hook.status, hook.disabled_reason]).toEqual([
      'disabled',
      `its owner ${user(3)} no longer holds exception.read, reconciliation.read, which read the data of ` +
        'exception.created, exception.sla.breached, reconciliation.completed; someone who holds exception.read, ' +
        'reconciliation.read without an end date can enable it again, and then owns it',
    ]);
    const test = await call(sandbox(), 'POST', `/v1/webhooks/${id}/test`, {
      ...admin(),
      body: { idempotency_key: key() },
    });
    expect([test.status, test.body.error?.code]).toEqual([409, 'webhook_disabled']);

    // It was made enabled, owned by its creator.
    expect([made.body.owner_id, made.body.status, made.body.disabled_reason]).toEqual([
      user(3),
      'enabled',
      null,
    ]);
    // An admin takes it over by enabling it: it delivers again, owned by them.
    const enabled = await call(sandbox(), 'PATCH', `/v1/webhooks/${id}`, {
      ...admin(),
      body: { status: 'enabled' },
    });
    expect([enabled.status, enabled.body.status, enabled.body.owner_id]).toEqual([
      200,
      'enabled',
      'usr_admin',
    ]);
    await emitted();
    expect(deliveriesTo(id)).toBe(3);
  });

  it("re-pointing an admin's webhook or replaying its deliveries takes exception.read; the payload too", async () => {
    await grant(user(4), await managers());
    const holder = as(user(4));
    const seeded = await getHook(SEEDED);
    const dead = (await call(sandbox(), 'GET', `/v1/webhooks/${SEEDED}/dlq?limit=1`, holder)).body.items[0];

    const repoint = await call(sandbox(), 'PATCH', `/v1/webhooks/${SEEDED}`, {
      ...holder,
      body: { url: 'http://127.0.0.1:9/stolen' },
    });
    expect(refusal(repoint)).toEqual([
      403,
      'insufficient_permission',
      "changing a webhook's URL, event kinds or status sends event data to its URL, so it takes the permission that reads " +
        'that data; you lack exception.read (exception.sla.breached, exception.created, exception.assigned): have someone who holds it do it',
    ]);
    expect((await getHook(SEEDED)).url).toBe(seeded.url);

    const replay = await call(
      sandbox(),
      'POST',
      `/v1/webhooks/${SEEDED}/deliveries/${dead.delivery_id}/replay`,
      {
        ...holder,
        body: { idempotency_key: key() },
      },
    );
    expect(refusal(replay)[0]).toBe(403);
    expect(replay.body.error.message).toMatch(
      /^replaying a delivery \(it re-sends the stored event to the webhook's URL\) sends event data/,
    );
    expect(
      sandbox()
        .state.webhooks.deliveriesOf(SEEDED)
        .filter((d) => d.replay_of !== null),
    ).toEqual([]);

    const payload = await call(
      sandbox(),
      'GET',
      `/v1/webhooks/${SEEDED}/deliveries/${dead.delivery_id}/payload`,
      holder,
    );
    expect(refusal(payload)).toEqual([
      403,
      'insufficient_permission',
      "this delivery's payload is the data of its exception.sla.breached event, which exception.read reads; you lack it: ask for a role that grants it",
    ]);
    expect(payload.text).not.toContain('account_id');
    // Holding exception.read, the same holder reads it.
    await grant(user(4), 'tenant_viewer');
    const read = await call(
      sandbox(),
      'GET',
      `/v1/webhooks/${SEEDED}/deliveries/${dead.delivery_id}/payload`,
      holder,
    );
    expect([read.status, read.body.type]).toEqual([200, 'exception.sla.breached']);
  });
});

describe('a webhook ends with the credential it was set up through', () => {
  it("a third-party OAuth client's webhook: owned by the approving user, disabled once the client is deleted", async () => {
    const client = await createClient(sandbox(), { scopes: ['admin'] });
    const tokens = await codeTokens(sandbox(), client, { scope: 'admin' });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    const made = await createHook({ token: tokens.body.access_token, tenant: TREASURY }, [
      'exception.created',
    ]);
    expect(made.status, made.text).toBe(201);
    const id = made.body.id;
    const gone = await call(sandbox(), 'DELETE', `/v1/oauth/clients/${client.client_id}`, admin());
    expect(gone.status, gone.text).toBe(200);
    const before = deliveriesTo(id);
    await emitted();
    expect(deliveriesTo(id)).toBe(before);
    const hook = await getHook(id);
    expect([hook.status, hook.disabled_reason]).toEqual([
      'disabled',
      `the OAuth client ${client.client_id} it was set up through was deleted; someone who holds exception.read without an end date can enable it again, and then owns it`,
    ]);
    expect(hook.owner_id).toBe('usr_admin');
  });

  it("a service-role key's webhook: owned by the key's issuer, disabled once the key is revoked", async () => {
    const issued = await call(sandbox(), 'POST', `/v1/tenants/${TREASURY}/api-keys`, {
      ...admin(),
      body: { kind: 'service_role', name: 'sync', justification: 'nightly sync job', idempotency_key: key() },
    });
    expect(issued.status, issued.text).toBe(201);
    const made = await createHook({ token: issued.body.key, tenant: TREASURY }, ['exception.created']);
    expect(made.status, made.text).toBe(201);
    const id = made.body.id;
    await emitted();
    expect(deliveriesTo(id)).toBe(1);
    const revoked = await call(
      sandbox(),
      'DELETE',
      `/v1/tenants/${TREASURY}/api-keys/${issued.body.id}`,
      admin(),
    );
    expect(revoked.status, revoked.text).toBe(200);
    await emitted();
    expect(deliveriesTo(id)).toBe(1);
    const hook = await getHook(id);
    expect([hook.status, hook.disabled_reason]).toEqual([
      'disabled',
      `the API key ${issued.body.id} it was set up through was revoked; someone who holds exception.read without an end date can enable it again, and then owns it`,
    ]);
    expect(hook.owner_id).toBe('usr_admin');
  });
});

describe('replays and discards are audited, naming the actor', () => {
  it('writes webhook.delivery_replayed and webhook.dlq_entry_discarded entries', async () => {
    const queued = (await call(sandbox(), 'GET', `/v1/webhooks/${SEEDED}/dlq?limit=2`, admin())).body.items;
    expect(queued.length).toBe(2);
    const [first, second] = queued;
    const replay = await call(
      sandbox(),
      'POST',
      `/v1/webhooks/${SEEDED}/deliveries/${first.delivery_id}/replay`,
      {
        ...admin(),
        body: { idempotency_key: key(), dlq_entry_id: first.id },
      },
    );
    expect(replay.status, replay.text).toBe(201);
    const discard = await call(sandbox(), 'DELETE', `/v1/webhooks/${SEEDED}/dlq/${second.id}`, admin());
    expect(discard.status, discard.text).toBe(200);
    const trail = await call(sandbox(), 'GET', `/v1/audit_trail?target_id=${SEEDED}&limit=200`, admin());
    const entries = trail.body.items
      .filter(
        (e: { action: string }) =>
          e.action === 'webhook.delivery_replayed' || e.action === 'webhook.dlq_entry_discarded',
      )
      .map((e: { action: string; actor: string; summary: string }) => [e.action, e.actor, e.summary])
      .sort();
    expect(entries).toEqual([
      [
        'webhook.delivery_replayed',
        'usr_admin',
        `delivery ${first.delivery_id} (${first.event_type} event ${first.event_id}) of webhook ${SEEDED} replayed as ${replay.body.id} (dead-letter entry ${first.id}) to http://127.0.0.1:9/svc/exceptions`,
      ],
      [
        'webhook.dlq_entry_discarded',
        'usr_admin',
        `dead-letter entry ${second.id} (delivery ${second.delivery_id}, ${second.event_type} event ${second.event_id}) of webhook ${SEEDED} discarded`,
      ],
    ]);
  });
});
