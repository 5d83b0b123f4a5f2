/**
 * `svc webhooks listen --webhook W` on a webhook with as many rotated-out secrets still signing as
 * the platform keeps (review s10 b, 2): the session's rotation is refused, so nothing changes;
 * svc says so, and does not send the user to restore-secret, which would undo the last real
 * rotation rather than anything this session did.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/context.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { admin, createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();

describe('listen --webhook W when W keeps as many old secrets as the platform allows', () => {
  it('changes nothing, says so, and exits 6', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/limit');
    for (let i = 0; i < 5; i++) {
      const r = await admin(svc.sandbox(), 'POST', `/v1/webhooks/${id}/rotate-secret`, {});
      expect(r.status).toBe(200);
    }
    const before = (await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).body;
    const r = await runInProcess(['webhooks', 'listen', '--port', '0', '--webhook', id], svc.env(), {
      now: Date.now(),
    });
    expect([r.code, r.stdout]).toEqual([6, '']);
    const last = r.stderr.trimEnd().split('\n').at(-1)!;
    expect(last).toMatch(
      new RegExp(
        `^error: the platform refused to rotate webhook ${id}'s secret: webhook ${id} already has 5 secrets rotated out that still sign, the most it keeps \\(the oldest until \\S+\\): rotate again after then; ` +
          "nothing was changed, so the commands above are not needed \\(and restore-secret would undo the last real rotation, not this session's\\); listen without --webhook instead, or once fewer old secrets still sign$",
      ),
    );
    expect((await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).body).toEqual(before);
  });
});
