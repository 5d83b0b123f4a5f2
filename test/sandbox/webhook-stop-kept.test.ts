import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../src/api/time.js';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { call, useGrantRules } from '../helpers/sandbox.js';

// Session 13 review (review-authz R1, R3, R4, R5): a replay was refused to a just-in-time admin
// who may read the very data; a stopped webhook resumed by itself when its owner regained the
// permission, even just in time; a PATCH status disabled of a stopped webhook did not show as a
// disable on request; a URL change put back made the one who put it back the owner for good.
const { sandbox, TREASURY, key, user, admin, as, grant, customRole, refusal } = useGrantRules('stop-kept');

const SEEDED = SEEDED_WEBHOOKS.exceptions;
const inMinutes = (minutes: number) => isoSeconds(sandbox().state.clock.now() + minutes * 60_000);
const getHook = async (id: string) => (await call(sandbox(), 'GET', `/v1/webhooks/${id}`, admin())).body;
const stateOf = async (id: string) => {
  const w = await getHook(id);
  return { status: w.status, owner_id: w.owner_id, disabled_reason: w.disabled_reason };
};
const patch = (id: string, caller: { token: string; tenant: string }, body: Record<string, unknown>) =>
  call(sandbox(), 'PATCH', `/v1/webhooks/${id}`, { ...caller, body });
const emitted = async () => {
  const r = await call(sandbox(), 'POST', '/_sandbox/webhooks/events', {
    body: { type: 'exception.created', tenant_id: TREASURY },
  });
  expect(r.status, r.text).toBe(201);
};
const lastAudit = () => sandbox().state.audit.matching(TREASURY).at(-1)!.entry;
const deliveriesTo = (id: string) => sandbox().state.webhooks.deliveriesOf(id).length;

let hookManagers: Promise<{ id: string }> | undefined;
const managers = async () => {
  hookManagers ??= customRole('hookmgr', ['webhook.manage', 'webhook.read']);
  return (await hookManagers).id;
};

/** A webhook on exception.created made by a user holding tenant_viewer (exception.read) without an end date. */
async function viewersHook(n: number) {
  await grant(user(n), await managers());
  await grant(user(n), 'tenant_viewer');
  const made = await call(sandbox(), 'POST', '/v1/webhooks', {
    ...as(user(n)),
    body: { url: `http://127.0.0.1:9/u${n}`, event_types: ['exception.created'], idempotency_key: key() },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.id as string;
}

const revokeViewer = async (n: number) => {
  const r = await call(sandbox(), 'DELETE', `/v1/users/${user(n)}/roles/tenant_viewer`, admin());
  expect(r.status, r.text).toBe(200);
};

describe('replaying a delivery takes the read permission of its data, held now (R1)', () => {
  it("a just-in-time admin on call replays the dead letters of another admin's webhook", async () => {
    await grant(user(1), 'tenant_admin', inMinutes(120));
    const oncall = as(user(1));
    const dead = (await call(sandbox(), 'GET', `/v1/webhooks/${SEEDED}/dlq?limit=1`, oncall)).body.items[0];
    const r = await call(sandbox(), 'POST', `/v1/webhooks/${SEEDED}/deliveries/${dead.delivery_id}/replay`, {
      ...oncall,
      body: { idempotency_key: key() },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.replay_of).toBe(dead.delivery_id);
    // The webhook is still the seeded admin's: a replay chooses nothing of where data goes.
    expect((await getHook(SEEDED)).owner_id).toBe('usr_admin');
  });

  it('without the read permission it is refused, each kind named once', async () => {
    await grant(user(2), await managers());
    const holder = as(user(2));
    const dead = (await call(sandbox(), 'GET', `/v1/webhooks/${SEEDED}/dlq?limit=1`, holder)).body.items[0];
    const r = await call(sandbox(), 'POST', `/v1/webhooks/${SEEDED}/deliveries/${dead.delivery_id}/replay`, {
      ...holder,
      body: { idempotency_key: key() },
    });
    expect(refusal(r)).toEqual([
      403,
      'insufficient_permission',
      "replaying a delivery (it re-sends the stored event to the webhook's URL) sends event data to its URL, so it takes the " +
        'permission that reads that data; you lack exception.read (exception.sla.breached, exception.created, exception.assigned): ' +
        'have someone who holds it do it',
    ]);
  });
});

describe('a stopped webhook stays stopped until someone enables it (R3)', () => {
  it('its owner regaining the permission, just in time or for good, does not resume it', async () => {
    const id = await viewersHook(3);
    await revokeViewer(3);
    const stopped = await stateOf(id);
    expect(stopped).toEqual({
      status: 'disabled',
      owner_id: user(3),
      disabled_reason:
        `its owner ${user(3)} no longer holds exception.read, which reads the data of exception.created; ` +
        'someone who holds exception.read without an end date can enable it again, and then owns it',
    });
    await grant(user(3), 'tenant_viewer', inMinutes(60));
    expect(await stateOf(id)).toEqual(stopped);
    const reader = await customRole('exread3', ['exception.read']);
    await grant(user(3), reader.id);
    expect(await stateOf(id)).toEqual(stopped);
    await emitted();
    expect(deliveriesTo(id)).toBe(0);

    // Someone who holds exception.read without an end date enables it, and owns it.
    const enabled = await patch(id, admin(), { status: 'enabled' });
    expect(enabled.status, enabled.text).toBe(200);
    expect(await stateOf(id)).toEqual({ status: 'enabled', owner_id: 'usr_admin', disabled_reason: null });
    await emitted();
    expect(deliveriesTo(id)).toBe(1);
  });

  it('a just-in-time grant that ends stops it for good, though nothing looked at it in between', async () => {
    const id = await viewersHook(4);
    const wind = await call(sandbox(), 'PATCH', `/v1/users/${user(4)}/roles/tenant_viewer`, {
      ...admin(),
      body: { expires_at: inMinutes(10), justification: 'wind down' },
    });
    expect(wind.status, wind.text).toBe(200);
    // The grant ends while no request is made; the next one (a new permanent grant) comes after.
    sandbox().state.clock.advance(11 * 60_000);
    await grant(user(4), (await customRole('exread4', ['exception.read'])).id);
    expect(await stateOf(id)).toMatchObject({
      status: 'disabled',
      disabled_reason: expect.stringContaining('no longer holds'),
    });
  });
});

describe('disabling a stopped webhook on request (R4)', () => {
  it('stores it disabled: it shows no reason, and stays disabled when its owner regains the permission', async () => {
    const id = await viewersHook(5);
    await revokeViewer(5);
    const r = await patch(id, admin(), { status: 'disabled' });
    expect(r.status, r.text).toBe(200);
    expect([r.body.status, r.body.disabled_reason]).toEqual(['disabled', null]);
    const entry = lastAudit();
    expect([entry.action, entry.changes]).toEqual(['webhook.updated', ['status']]);
    await grant(user(5), 'tenant_viewer');
    expect(await stateOf(id)).toEqual({ status: 'disabled', owner_id: user(5), disabled_reason: null });
  });
});

describe('a URL change put back by whoever made it gives the webhook back to its owner (R5)', () => {
  it('re-pointed and put back by a lead: owned by the admin again, and audited so', async () => {
    await grant(user(6), await managers());
    await grant(user(6), 'tenant_viewer');
    const lead = as(user(6));
    const before = await getHook(SEEDED);
    const away = await patch(SEEDED, lead, { url: 'http://127.0.0.1:9/lead' });
    expect([away.status, away.body.owner_id]).toEqual([200, user(6)]);
    const back = await patch(SEEDED, lead, { url: before.url });
    expect([back.status, back.body.url, back.body.owner_id]).toEqual([200, before.url, 'usr_admin']);
    const entry = lastAudit();
    expect([entry.summary, entry.before, entry.after]).toEqual([
      `webhook ${SEEDED} updated (url, owner_id)`,
      { url: 'http://127.0.0.1:9/lead', owner_id: user(6) },
      { url: before.url, owner_id: 'usr_admin' },
    ]);
    // Then the lead moves team: the webhook, the admin's again, keeps delivering.
    await revokeViewer(6);
    expect(await stateOf(SEEDED)).toEqual({
      status: 'enabled',
      owner_id: 'usr_admin',
      disabled_reason: null,
    });
  });

  it('put back by someone else, the one who put it back owns it', async () => {
    const id = await viewersHook(7);
    const first = await getHook(id);
    expect((await patch(id, admin(), { url: 'http://127.0.0.1:9/admin7' })).body.owner_id).toBe('usr_admin');
    await grant(user(8), await managers());
    await grant(user(8), 'tenant_viewer');
    const other = await patch(id, as(user(8)), { url: first.url });
    expect([other.status, other.body.owner_id]).toEqual([200, user(8)]);
  });
});

// Session 13 closing note: after a URL change on a stopped webhook, owner_id named the one who
// changed it while disabled_reason still named the owner it was stopped under, until enabled.
describe('a stopped webhook changed but not enabled keeps the owner its stop names', () => {
  it('a new URL by a holder: owner_id and disabled_reason both name the stopped owner; enabling takes it over', async () => {
    const id = await viewersHook(9);
    await revokeViewer(9);
    const stopped = await stateOf(id);
    expect(stopped.disabled_reason).toContain(`its owner ${user(9)} no longer holds`);
    const moved = await patch(id, admin(), { url: 'http://127.0.0.1:9/moved9' });
    expect([moved.status, moved.body.url], moved.text).toEqual([200, 'http://127.0.0.1:9/moved9']);
    expect(await stateOf(id)).toEqual(stopped);
    const entry = lastAudit();
    expect([entry.action, entry.changes]).toEqual(['webhook.updated', ['url']]);
    await emitted();
    expect(deliveriesTo(id)).toBe(0);

    const enabled = await patch(id, admin(), { status: 'enabled' });
    expect(enabled.status, enabled.text).toBe(200);
    expect(await stateOf(id)).toEqual({ status: 'enabled', owner_id: 'usr_admin', disabled_reason: null });
  });
});
