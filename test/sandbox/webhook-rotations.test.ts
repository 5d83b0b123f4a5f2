/**
 * Rotating a webhook's secret again within 24 hours: every secret rotated out keeps signing until
 * the time its own rotation promised, up to MAX_PREVIOUS_SECRETS at once (finding s10 receiver 4).
 */
import { describe, expect, it } from 'vitest';
import { MAX_PREVIOUS_SECRETS } from '../../src/sandbox/domain/webhooks.js';
import { verifySignature } from '../../src/webhooks/signature.js';
import { advanceClock, call, useSandbox } from '../helpers/sandbox.js';
import { startTarget } from '../helpers/targets.js';
import { ANSWERED_TIMEOUT_MS, admin, createWebhook, emit, settle } from '../helpers/webhooks.js';

// Every target here answers: the request timeout is far above need (ANSWERED_TIMEOUT_MS).
const sandbox = useSandbox({ webhooks: { timeScale: 0.0005, requestTimeoutMs: ANSWERED_TIMEOUT_MS } });
const rotate = async (id: string) =>
  (await admin(sandbox(), 'POST', `/v1/webhooks/${id}/rotate-secret`, {})).body;
const advance = (seconds: number) => advanceClock(sandbox(), seconds);

/** Which of `secrets` sign the next delivery (by signature, as a receiver checks). */
async function signing(
  id: string,
  received: { body: Buffer; headers: Record<string, unknown> }[],
  secrets: string[],
) {
  const before = received.length;
  await emit(sandbox(), id);
  await settle(sandbox());
  const { body, headers } = received[before]!;
  const header = headers['x-svc-signature'] as string;
  const t = Number(/t=(\d+)/.exec(header)![1]);
  return secrets.map((s) => verifySignature(body, header, s, { nowSeconds: t }).valid);
}

describe('rotating a webhook secret twice within 24 hours', () => {
  it('keeps the first old secret signing until the time its rotation promised, then only that one stops', async () => {
    const target = await startTarget(() => ({ status: 200 }));
    const { id, secret: r0 } = await createWebhook(sandbox(), target.url);
    const first = await rotate(id);
    await advance(3600);
    const second = await rotate(id);
    expect(second.previous_secret_expires_at).not.toBe(first.previous_secret_expires_at);
    expect(second.previous_secrets).toEqual([
      { rotated_out_at: second.secret_rotated_at, expires_at: second.previous_secret_expires_at },
      { rotated_out_at: first.secret_rotated_at, expires_at: first.previous_secret_expires_at },
    ]);
    expect(await signing(id, target.received, [r0, first.secret, second.secret])).toEqual([true, true, true]);
    // Past T1 (the first promise), r0 stops; r1 signs on until T2.
    await advance(23 * 3600 + 1);
    expect(await signing(id, target.received, [r0, first.secret, second.secret])).toEqual([
      false,
      true,
      true,
    ]);
    expect((await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).body.previous_secrets).toEqual([
      { rotated_out_at: second.secret_rotated_at, expires_at: second.previous_secret_expires_at },
    ]);
    await advance(3600);
    expect(await signing(id, target.received, [r0, first.secret, second.secret])).toEqual([
      false,
      false,
      true,
    ]);
    expect((await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).body.previous_secrets).toEqual([]);
    await target.close();
  });

  it(`refuses a rotation that would end a promise early: at most ${MAX_PREVIOUS_SECRETS} secrets rotated out sign at once`, async () => {
    const { id } = await createWebhook(sandbox(), 'https://hooks.example/cap');
    const rotations = [];
    for (let i = 0; i < MAX_PREVIOUS_SECRETS; i++) {
      rotations.push(await rotate(id));
      await advance(60);
    }
    const refused = await admin(sandbox(), 'POST', `/v1/webhooks/${id}/rotate-secret`, {});
    expect([refused.status, refused.body.error.code]).toEqual([409, 'conflict']);
    expect(refused.body.error.message).toBe(
      `webhook ${id} already has ${MAX_PREVIOUS_SECRETS} secrets rotated out that still sign, the most it keeps ` +
        `(the oldest until ${rotations[0].previous_secret_expires_at}): rotate again after then, or undo the last rotation with restore-secret`,
    );
    const after = (await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).body;
    expect(after.secret_rotated_at).toBe(rotations.at(-1).secret_rotated_at);
    // Once the oldest stopped signing, there is room again.
    await advance(24 * 3600 - 60 * (MAX_PREVIOUS_SECRETS - 1) + 1);
    expect((await admin(sandbox(), 'POST', `/v1/webhooks/${id}/rotate-secret`, {})).status).toBe(200);
  });

  it('restore-secret pops the rotations one by one, each old secret with its own promise', async () => {
    const { id, secret: r0 } = await createWebhook(sandbox(), 'https://hooks.example/stack');
    const first = await rotate(id);
    await advance(3600);
    const second = await rotate(id);
    const restored = (await admin(sandbox(), 'POST', `/v1/webhooks/${id}/restore-secret`, {})).body;
    expect(restored).toMatchObject({
      secret_rotated_at: first.secret_rotated_at,
      previous_secret_expires_at: first.previous_secret_expires_at,
      previous_secrets: [
        { rotated_out_at: first.secret_rotated_at, expires_at: first.previous_secret_expires_at },
      ],
    });
    expect((await call(sandbox(), 'GET', `/_sandbox/webhooks/${id}/secret`)).body).toMatchObject({
      secret: first.secret,
      previous_secret: r0,
    });
    expect(second.secret).not.toBe(first.secret);
  });
});
