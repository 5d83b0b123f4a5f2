import { describe, expect, it } from 'vitest';
import { call, useGrantRules } from '../helpers/sandbox.js';
import { startTarget } from '../helpers/targets.js';
import { settle } from '../helpers/webhooks.js';

// Session 15 (attack15 F4): a delivery's last_error (each attempt's error, each dead-letter
// entry's last_error) carried the first 200 characters of the target's answer, which a validating
// receiver fills with the event's data it rejected; webhook.read alone read it, though the payload
// endpoint refuses that caller. The body is now the event's data as far as the platform knows:
// shown only to callers who hold the kind's read permission, as the payload is.
const { sandbox, key, user, admin, as, customRole, grant, refusal } = useGrantRules('answer-body');

const IBAN = 'GB29NWBK60161331926819';
const DATA = { exception_id: 'exc_2', counterparty: 'ACME BANK PLC', amount: '1250000.00', iban: IBAN };
const WITHHELD =
  "4xx_client_error: the target answered 422 Unprocessable Entity (the answer's body is withheld: it may echo the event's data; exception.read shows it)";

/** A webhook whose target answers 422 echoing the event's data, with one dead-lettered delivery of `type`. */
async function deadLetter(type: string, data: Record<string, unknown> = DATA) {
  const target = await startTarget((_n, request) => ({
    status: 422,
    body: JSON.stringify({ error: 'rejected', data: JSON.parse(request.body.toString()).data }),
  }));
  const made = await call(sandbox(), 'POST', '/v1/webhooks', {
    ...admin(),
    body: { url: target.url, event_types: [type], max_attempts: 1, idempotency_key: key() },
  });
  expect(made.status, made.text).toBe(201);
  const sent = await call(sandbox(), 'POST', '/_sandbox/webhooks/events', {
    body: { type, webhook_id: made.body.id, data },
  });
  expect(sent.status, sent.text).toBe(201);
  await settle(sandbox());
  const dlq = await call(sandbox(), 'GET', `/v1/webhooks/${made.body.id}/dlq`, admin());
  expect(dlq.body.items).toHaveLength(1);
  return { webhook: made.body.id as string, entry: dlq.body.items[0] };
}

/** Everything a webhook.read caller reads of a webhook's failures, as text. */
async function failureViews(caller: { token: string; tenant: string }, webhook: string, entry: any) {
  const get = (path: string) => call(sandbox(), 'GET', `/v1/webhooks/${webhook}${path}`, caller);
  const views = await Promise.all([
    get('/deliveries'),
    get(`/deliveries/${entry.delivery_id}`),
    get('/dlq'),
    get(`/dlq/${entry.id}`),
  ]);
  for (const v of views) expect(v.status, v.text).toBe(200);
  const [list, one, dlq, dlqOne] = views.map((v) => v.body);
  return {
    errors: [
      list.items[0].last_error,
      one.last_error,
      one.attempts[0].error,
      dlq.items[0].last_error,
      dlqOne.last_error,
    ],
    text: views.map((v) => v.text).join('\n'),
  };
}

describe("a target's answer body is the event's data: webhook.read alone does not read it", () => {
  it('a webhook.read holder without exception.read sees the status, the cause and that the body is withheld', async () => {
    const { webhook, entry } = await deadLetter('exception.created');
    const readers = await customRole('wh-reader', ['webhook.read']);
    await grant(user(1), readers.id);
    const { errors, text } = await failureViews(as(user(1)), webhook, entry);
    expect(errors).toEqual(Array(5).fill(WITHHELD));
    for (const secret of [IBAN, 'ACME BANK PLC', '1250000.00']) expect(text).not.toContain(secret);
    // The payload endpoint refuses the same caller: the same rule.
    const payload = await call(
      sandbox(),
      'GET',
      `/v1/webhooks/${webhook}/deliveries/${entry.delivery_id}/payload`,
      as(user(1)),
    );
    expect(refusal(payload)[0]).toBe(403);
  });

  it("a caller who holds the kind's read permission reads the answer's body", async () => {
    const { webhook, entry } = await deadLetter('exception.created');
    const readers = await customRole('wh-data-reader', ['webhook.read', 'exception.read']);
    await grant(user(2), readers.id);
    const answer = `4xx_client_error: the target answered 422 Unprocessable Entity: {"error":"rejected","data":${JSON.stringify(DATA)}}`;
    expect((await failureViews(as(user(2)), webhook, entry)).errors).toEqual(Array(5).fill(answer));
    expect((await failureViews(admin(), webhook, entry)).errors).toEqual(Array(5).fill(answer));
  });

  it("a reconciliation kind's body takes reconciliation.read; a test event's carries no tenant data", async () => {
    const rec = await deadLetter('reconciliation.completed', { reconciliation_id: 'rec_1', matched: 12 });
    const test = await deadLetter('webhook.test', { message: 'hello' });
    const readers = await customRole('wh-ex-reader', ['webhook.read', 'exception.read']);
    await grant(user(3), readers.id);
    expect((await failureViews(as(user(3)), rec.webhook, rec.entry)).errors[0]).toBe(
      "4xx_client_error: the target answered 422 Unprocessable Entity (the answer's body is withheld: it may echo the event's data; reconciliation.read shows it)",
    );
    expect((await failureViews(as(user(3)), test.webhook, test.entry)).errors[0]).toBe(
      '4xx_client_error: the target answered 422 Unprocessable Entity: {"error":"rejected","data":{"message":"hello"}}',
    );
  });

  it("a refused discard's entry (409 details) withholds the body from a webhook.manage holder without exception.read", async () => {
    const { webhook, entry } = await deadLetter('exception.created');
    const replay = await call(
      sandbox(),
      'POST',
      `/v1/webhooks/${webhook}/deliveries/${entry.delivery_id}/replay`,
      {
        ...admin(),
        body: { dlq_entry_id: entry.id, idempotency_key: key() },
      },
    );
    expect(replay.status, replay.text).toBe(201);
    const managers = await customRole('wh-manager', ['webhook.read', 'webhook.manage']);
    await grant(user(4), managers.id);
    const discard = await call(sandbox(), 'DELETE', `/v1/webhooks/${webhook}/dlq/${entry.id}`, as(user(4)));
    expect(refusal(discard).slice(0, 2)).toEqual([409, 'dlq_entry_not_queued']);
    expect(discard.body.error.details[0].entry.last_error).toBe(WITHHELD);
    expect(discard.text).not.toContain(IBAN);
  });
});
