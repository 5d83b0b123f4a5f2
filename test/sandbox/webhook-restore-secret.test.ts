/** POST /v1/webhooks/{id}/restore-secret: a rotation undone while the old secret still signs. */
import { describe, expect, it } from 'vitest';
import { MAX_PREVIOUS_SECRETS } from '../../src/sandbox/domain/webhooks.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { admin, createWebhook } from '../helpers/webhooks.js';

const sandbox = useSandbox();
const secrets = async (id: string) => (await call(sandbox(), 'GET', `/_sandbox/webhooks/${id}/secret`)).body;

describe('restoring a webhook secret', () => {
  it('puts back the secret a rotation replaced, and the rotation before it as it was', async () => {
    const { id, secret: first } = await createWebhook(sandbox(), 'https://hooks.example/a');
    const second = (await admin(sandbox(), 'POST', `/v1/webhooks/${id}/rotate-secret`, {})).body;
    const mid = (await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).body;
    await admin(sandbox(), 'POST', `/v1/webhooks/${id}/rotate-secret`, {});
    const restored = await admin(sandbox(), 'POST', `/v1/webhooks/${id}/restore-secret`, {});
    expect(restored.status).toBe(200);
    expect(restored.body).not.toHaveProperty('secret');
    expect(restored.body).toMatchObject({
      secret_rotated_at: mid.secret_rotated_at,
      previous_secret_expires_at: mid.previous_secret_expires_at,
    });
    expect(await secrets(id)).toEqual({ id, secret: second.secret, previous_secret: first });
    // A stack: the next restore undoes the rotation before, and then there is none left.
    const again = await admin(sandbox(), 'POST', `/v1/webhooks/${id}/restore-secret`, {});
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ secret_rotated_at: null, previous_secret_expires_at: null });
    expect(await secrets(id)).toEqual({ id, secret: first, previous_secret: null });
    const none = await admin(sandbox(), 'POST', `/v1/webhooks/${id}/restore-secret`, {});
    expect([none.status, none.body.error.code]).toEqual([409, 'conflict']);
  });

  it(`undoes up to ${MAX_PREVIOUS_SECRETS} rotations in a row, and none below one whose replaced secret stopped signing`, async () => {
    const { id, secret: first } = await createWebhook(sandbox(), 'https://hooks.example/c');
    const a = (await admin(sandbox(), 'POST', `/v1/webhooks/${id}/rotate-secret`, {})).body.secret;
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 24 * 3600 + 1 } });
    const kept = (await admin(sandbox(), 'POST', `/v1/webhooks/${id}/rotate-secret`, {})).body.secret;
    for (let i = 0; i < MAX_PREVIOUS_SECRETS - 1; i++)
      expect((await admin(sandbox(), 'POST', `/v1/webhooks/${id}/rotate-secret`, {})).status).toBe(200);
    for (let i = 0; i < MAX_PREVIOUS_SECRETS - 1; i++)
      expect((await admin(sandbox(), 'POST', `/v1/webhooks/${id}/restore-secret`, {})).status).toBe(200);
    expect((await secrets(id)).secret).toBe(kept);
    expect((await admin(sandbox(), 'POST', `/v1/webhooks/${id}/restore-secret`, {})).status).toBe(200);
    expect((await secrets(id)).secret).toBe(a);
    // The first secret stopped signing a day ago: that rotation cannot be undone.
    expect((await admin(sandbox(), 'POST', `/v1/webhooks/${id}/restore-secret`, {})).status).toBe(409);
    expect((await secrets(id)).secret).not.toBe(first);
  });

  it('is a conflict when the secret was never rotated, or after the old one stopped signing', async () => {
    const { id } = await createWebhook(sandbox(), 'https://hooks.example/b');
    expect((await admin(sandbox(), 'POST', `/v1/webhooks/${id}/restore-secret`, {})).status).toBe(409);
    await admin(sandbox(), 'POST', `/v1/webhooks/${id}/rotate-secret`, {});
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 24 * 3600 + 1 } });
    const late = await admin(sandbox(), 'POST', `/v1/webhooks/${id}/restore-secret`, {});
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain('there is no rotation to undo');
  });
});
