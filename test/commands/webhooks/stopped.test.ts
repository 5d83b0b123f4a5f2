import { describe, expect, it } from 'vitest';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { admin, TENANT, until } from '../../helpers/webhooks.js';

// Session 13 review (review-authz R6, R7): a delivery whose retry was cancelled because the
// platform stopped its webhook was listed as failed with connection_timeout and the remedy of an
// unreachable target, and was in no dead-letter queue; `svc webhooks replay` on the stopped
// webhook said only "is disabled", not why nor who may enable it (the platform's disabled_reason).
const svc = useSandboxContext();

/** A webhook of usr_viewer's whose retry its stop cancelled: the webhook, the delivery, the reason. */
async function stoppedWithCancelled() {
  const sandbox = svc.sandbox();
  const role = await admin(sandbox, 'POST', '/v1/roles', {
    name: 'hookmgr',
    permissions: ['webhook.manage', 'webhook.read'],
  });
  expect(role.status, role.text).toBe(201);
  const granted = await admin(sandbox, 'POST', '/v1/users/usr_viewer/roles', { role_id: role.body.id });
  expect(granted.status, granted.text).toBe(201);
  const viewer = sandbox.issueToken('usr_viewer', { expiresInSeconds: 86_400 }).token;
  const made = await call(sandbox, 'POST', '/v1/webhooks', {
    token: viewer,
    tenant: TENANT,
    body: { url: 'http://127.0.0.1:9/down', event_types: ['exception.created'], idempotency_key: 'wd1' },
  });
  expect(made.status, made.text).toBe(201);
  const webhook: string = made.body.id;
  await call(sandbox, 'POST', '/_sandbox/webhooks/events', {
    body: { type: 'exception.created', tenant_id: TENANT },
  });
  const d = sandbox.state.webhooks.deliveriesOf(webhook)[0]!;
  await until(() => d.status === 'retrying');
  const revoked = await admin(sandbox, 'DELETE', '/v1/users/usr_viewer/roles/tenant_viewer');
  expect(revoked.status, revoked.text).toBe(200);
  await call(sandbox, 'POST', '/_sandbox/clock', { body: { advance_seconds: 3600 } });
  await until(() => d.status === 'failed');
  const reason = (await admin(sandbox, 'GET', `/v1/webhooks/${webhook}`)).body.disabled_reason;
  return { webhook, delivery: d.id, reason };
}

describe('a webhook the platform stopped, and the delivery its stop cancelled', () => {
  it('the list says webhook_stopped, get gives the remedy, the dlq holds it, and replay says why it is refused', async () => {
    const { webhook, delivery, reason } = await stoppedWithCancelled();
    expect(reason).toBe(
      'its owner usr_viewer no longer holds exception.read, which reads the data of exception.created; ' +
        'someone who holds exception.read without an end date can enable it again, and then owns it',
    );

    const listed = await svc.run(['webhooks', 'deliveries', webhook]);
    expect([listed.code, listed.stdout.split('\n')[0]?.split('\t').slice(0, 6)]).toEqual([
      0,
      [delivery, 'exception.created', 'failed', '1/5', '', 'webhook_stopped'],
    ]);

    // Review 14 (s15 brief 5): `deliveries get` gave the generic remedy ("svc webhooks get says
    // why"), where a followed replay's row and `webhooks test` give the webhook's reason and the
    // commands (remedyNow); `dlq get` too.
    const fields = async (...argv: string[]) => {
      const got = await svc.run(['webhooks', ...argv]);
      const field = (name: string) =>
        got.stdout
          .split('\n')
          .find((line) => line.startsWith(`${name}\t`))
          ?.slice(name.length + 1);
      return [got.code, field('error'), field('cause'), field('remedy')];
    };
    const failure = (remedy: string) => [
      0,
      `webhook_stopped: cancelled: the webhook was stopped: ${reason}`,
      'webhook_stopped',
      remedy,
    ];
    const replayIt = `replay the delivery from the dead-letter queue: svc webhooks replay ${webhook} --dlq`;
    const stoppedRemedy =
      `the platform stopped webhook ${webhook}, so the attempt was not made: ${reason}; ` +
      `enable it with: svc webhooks update ${webhook} --enable, then ${replayIt}`;
    expect(await fields('deliveries', 'get', webhook, delivery)).toEqual(failure(stoppedRemedy));

    const dlq = await svc.run(['webhooks', 'dlq', webhook, '--json']);
    const entries = JSON.parse(dlq.stdout) as Array<{ id: string; delivery_id: string }>;
    expect(entries.map((e) => e.delivery_id)).toEqual([delivery]);
    expect(await fields('dlq', 'get', webhook, entries[0]!.id)).toEqual(failure(stoppedRemedy));

    const refusal =
      `error: webhook ${webhook} is disabled: ${reason}; it receives no events, replays included; ` +
      `enable it with: svc webhooks update ${webhook} --enable\n`;
    for (const args of [
      [delivery, '--no-wait'],
      ['--dlq', '--dry-run'],
    ]) {
      const replayed = await svc.run(['webhooks', 'replay', webhook, ...args]);
      expect([replayed.code, replayed.stdout, replayed.stderr]).toEqual([6, '', refusal]);
    }

    // The admin, who holds exception.read without an end date, enables it: --dlq sends it.
    const enabled = await svc.run(['webhooks', 'update', webhook, '--enable']);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(await fields('deliveries', 'get', webhook, delivery)).toEqual(
      failure(
        `the platform had stopped webhook ${webhook}, so the attempt was not made; it is enabled again: ${replayIt}`,
      ),
    );
    const replayed = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--no-wait']);
    expect([replayed.code, replayed.stdout.includes(delivery)], replayed.stderr).toEqual([0, true]);
  });
});
