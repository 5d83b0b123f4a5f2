import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { runInProcess } from '../helpers/context.js';
import { call, useGrantRules } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

// Session 15 (attack15 F3): a just-in-time webhook.manage grant rotated a webhook's signing secret
// and was handed the new one, a standing credential that outlived the grant (the same caller was
// refused a webhook of their own); restore-secret put a cut-off secret back. Both now take what
// choosing the webhook's URL takes, plus webhook.manage, held without an end date.
const { sandbox, TREASURY, key, user, admin, as, grant, inHours, customRole, refusal } =
  useGrantRules('secret-hold');
const SEEDED = SEEDED_WEBHOOKS.exceptions;
const secretOf = () => sandbox().state.webhooks.get(TREASURY, SEEDED)!.secret;
const rotate = (caller: { token: string; tenant: string }) =>
  call(sandbox(), 'POST', `/v1/webhooks/${SEEDED}/rotate-secret`, {
    ...caller,
    body: { idempotency_key: key() },
  });
const restore = (caller: { token: string; tenant: string }) =>
  call(sandbox(), 'POST', `/v1/webhooks/${SEEDED}/restore-secret`, {
    ...caller,
    body: { idempotency_key: key() },
  });

describe("a webhook's signing secret is a standing credential: rotating or restoring it takes its holds without an end date", () => {
  it('webhook.manage alone, no exception.read: 403 naming what is lacking, the secret unchanged', async () => {
    const managers = await customRole('sh-managers', ['webhook.manage', 'webhook.read']);
    await grant(user(1), managers.id, inHours(1));
    const before = secretOf();
    expect(refusal(await rotate(as(user(1))))).toEqual([
      403,
      'insufficient_permission',
      // Review 15c R3: its own words (the secret signs events); a rotation sends nothing anywhere.
      "rotating a webhook's signing secret (it hands you the new one) takes the read permission of each of the webhook's " +
        'kinds: the secret signs events of exception.sla.breached, exception.created, exception.assigned; you lack ' +
        'exception.read: have someone who holds it do it',
    ]);
    expect(secretOf()).toBe(before);
  });

  it('an on-call grant of webhook.manage and exception.read until T: 403 naming T; restore too; a standing holder may', async () => {
    const oncall = await customRole('sh-oncall', ['webhook.manage', 'webhook.read', 'exception.read']);
    const until = inHours(1);
    await grant(user(2), oncall.id, until);
    const before = secretOf();
    expect(refusal(await rotate(as(user(2))))).toEqual([
      403,
      'insufficient_permission',
      "a webhook's signing secret is a standing credential, like an API key: rotating a webhook's signing secret (it hands " +
        "you the new one) takes the read permission of each of the webhook's kinds held without an end date, and you hold " +
        'exception.read (exception.sla.breached, ' +
        `exception.created, exception.assigned) only until ${until}; have someone who holds it without an end date do it`,
    ]);
    expect(secretOf()).toBe(before);

    // Reads held for good, webhook.manage just in time: still refused, naming webhook.manage.
    const readers = await customRole('sh-readers', ['exception.read']);
    const managers = await customRole('sh-jit-managers', ['webhook.manage', 'webhook.read']);
    await grant(user(3), readers.id);
    await grant(user(3), managers.id, until);
    expect(refusal(await rotate(as(user(3))))).toEqual([
      403,
      'insufficient_permission',
      "a webhook's signing secret is a standing credential, like an API key: rotating a webhook's signing secret (it hands " +
        `you the new one) takes webhook.manage held without an end date, and you hold it only until ${until}; have someone ` +
        'who holds it without an end date do it',
    ]);

    // The admin rotates to cut someone off; the on-call holder cannot put the old secret back.
    const rotated = await rotate(admin());
    expect(rotated.status, rotated.text).toBe(200);
    expect(refusal(await restore(as(user(2))))[2]).toMatch(
      /^a webhook's signing secret is a standing credential, like an API key: restoring a webhook's previous signing secret \(it puts back one that was cut off\) takes the read permission .* only until /,
    );
    expect(secretOf()).toBe(rotated.body.secret);
    expect(secretOf()).not.toBe(before);

    // Held without an end date: allowed.
    await grant(user(4), readers.id);
    await grant(user(4), managers.id);
    const own = await rotate(as(user(4)));
    expect(own.status, own.text).toBe(200);
    expect(secretOf()).toBe(own.body.secret);
    expect((await restore(as(user(4)))).status).toBe(200);
    expect(secretOf()).toBe(rotated.body.secret);
  });
});

describe('svc webhooks rotate-secret shows the refusal', () => {
  it('as one line with the fix, exit 4, no secret file written', async () => {
    const oncall = await customRole('sh-cli-oncall', ['webhook.manage', 'webhook.read', 'exception.read']);
    const until = inHours(1);
    await grant(user(5), oncall.id, until);
    const dirs = {
      SVC_CONFIG_DIR: tempDir('svc-c-'),
      SVC_STATE_DIR: tempDir('svc-s-'),
      SVC_CACHE_DIR: tempDir('svc-k-'),
    };
    const env = {
      ...dirs,
      SVC_BASE_URL: sandbox().url,
      SVC_TOKEN: as(user(5)).token,
      SVC_TENANT: TREASURY,
      NO_COLOR: '1',
    };
    const file = join(dirs.SVC_STATE_DIR, 'new.secret');
    const rotated = await runInProcess(['webhooks', 'rotate-secret', SEEDED, '--secret-file', file], env);
    expect(rotated.code, rotated.stderr).toBe(4);
    expect(rotated.stdout).toBe('');
    expect(rotated.stderr.trim().split('\n')).toHaveLength(1);
    expect(rotated.stderr).toContain(
      `rotating a webhook's signing secret (it hands you the new one) takes the read permission of each of the webhook's kinds held without an end date, and you hold exception.read (exception.sla.breached, exception.created, exception.assigned) only until ${until}; have someone who holds it without an end date do it`,
    );
    expect(existsSync(file)).toBe(false);
  });
});

// Review 15c R2: creating a webhook answers its signing secret too, and the webhook (with that
// secret) keeps delivering after a just-in-time webhook.manage grant ends (it stops only when its
// owner loses a kind's read permission: stoppedBecause). So creation takes webhook.manage held
// without an end date, as rotation does and as creating an OAuth client takes its reach so held.
describe('creating a webhook hands out its signing secret: it takes webhook.manage held without an end date', () => {
  const create = (caller: { token: string; tenant: string }, url: string) =>
    call(sandbox(), 'POST', '/v1/webhooks', {
      ...caller,
      body: { url, event_types: ['exception.created'], idempotency_key: key() },
    });

  it('reads held for good, webhook.manage just in time: 403 naming when it ends, no webhook made; held for good: 201', async () => {
    const readers = await customRole('sh-create-readers', ['exception.read']);
    const managers = await customRole('sh-create-jit', ['webhook.manage', 'webhook.read']);
    const until = inHours(1);
    await grant(user(6), readers.id);
    await grant(user(6), managers.id, until);
    const count = () => sandbox().state.webhooks.list(TREASURY).length;
    const before = count();
    expect(refusal(await create(as(user(6)), 'https://erp.example.com/ingest'))).toEqual([
      403,
      'insufficient_permission',
      "a webhook's signing secret is a standing credential, like an API key: creating a webhook (it hands you its " +
        `first signing secret) takes webhook.manage held without an end date, and you hold it only until ${until}; ` +
        'have someone who holds it without an end date do it',
    ]);
    expect(count()).toBe(before);

    await grant(user(7), readers.id);
    await grant(user(7), managers.id);
    const made = await create(as(user(7)), 'https://erp.example.com/ingest');
    expect(made.status, made.text).toBe(201);
    expect(made.body.secret).toMatch(/^whsec_/);
  });
});
