import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { parseListen } from '../../../src/commands/webhooks/listen.js';
import { runListen } from '../../../src/commands/webhooks/listen-run.js';
import { SEEDED_WEBHOOKS } from '../../../src/sandbox/delivery/events.js';
import { writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { admin, TENANT, webhookNow } from '../../helpers/webhooks.js';

// Session 13 review (review-authz R1, R4, R5), through svc: a just-in-time admin's replay was
// refused (and its dry run promised it); `update --disable` and `plan` of a webhook the platform
// stopped said "nothing changed" and sent nothing; `listen --webhook` left the listener owning
// the webhook it said was "back". (A file's `status: disabled` of a stopped webhook is no change
// since review29d H1: it is disabled.)
const svc = useSandboxContext();
const dir = useTempDir('svc-stopped-owner-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let hookmgr = '';

beforeAll(async () => {
  const role = await admin(svc.sandbox(), 'POST', '/v1/roles', {
    name: 'hookmgr',
    permissions: ['webhook.manage', 'webhook.read'],
  });
  expect(role.status, role.text).toBe(201);
  hookmgr = role.body.id;
});

const tokenOf = (userId: string) => svc.sandbox().issueToken(userId, { expiresInSeconds: 86_400 }).token;
const grant = async (userId: string, roleId: string, expiresAt?: string) => {
  const r = await admin(svc.sandbox(), 'POST', `/v1/users/${userId}/roles`, {
    role_id: roleId,
    ...(expiresAt ? { expires_at: expiresAt, justification: 'incident 124 on-call' } : {}),
  });
  expect(r.status, r.text).toBe(201);
};

/** A webhook usr_viewer made, stopped by taking tenant_viewer (exception.read) from them. */
async function stoppedHook(path: string) {
  const made = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
    token: tokenOf('usr_viewer'),
    tenant: TENANT,
    body: { url: `http://127.0.0.1:9/${path}`, event_types: ['exception.created'], idempotency_key: path },
  });
  expect(made.status, made.text).toBe(201);
  const taken = await admin(svc.sandbox(), 'DELETE', '/v1/users/usr_viewer/roles/tenant_viewer');
  expect(taken.status, taken.text).toBe(200);
  const hook = await webhookNow(svc.sandbox(), made.body.id);
  expect([hook.status, hook.disabled_reason]).toEqual([
    'disabled',
    expect.stringContaining('no longer holds'),
  ]);
  return made.body.id as string;
}

const viewerBack = () => grant('usr_viewer', 'tenant_viewer');
const REASON =
  'its owner usr_viewer no longer holds exception.read, which reads the data of exception.created; ' +
  'someone who holds exception.read without an end date can enable it again, and then owns it';

describe('a webhook the platform stopped, disabled on request (R4)', () => {
  beforeAll(() => grant('usr_viewer', hookmgr));

  it('svc webhooks update --disable sends the change and says what it did', async () => {
    const id = await stoppedHook('r4-update');
    const r = await svc.run(['webhooks', 'update', id, '--disable']);
    expect([r.code, r.stderr]).toEqual([
      0,
      `✓ updated webhook ${id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (status): the platform had stopped it (${REASON}); it is now disabled on request, ` +
        'and stays disabled until someone enables it\n',
    ]);
    await viewerBack();
    const after = await webhookNow(svc.sandbox(), id);
    expect([after.status, after.disabled_reason]).toEqual(['disabled', null]);
  });

  // review29d H1: a stopped webhook is disabled, so a file saying so (an unedited export) is no
  // change and sends nothing; its stop and disabled_reason stay. Disabling it on request is
  // `svc webhooks update --disable` (above).
  it('svc plan of a file saying status: disabled plans no change, and apply keeps the stop', async () => {
    const id = await stoppedHook('r4-plan');
    const file = writeFile(
      dir,
      'stopped.yaml',
      `version: 1\nblocks:\n  - tenants: acme-treasury\n    webhooks:\n      - id: ${id}\n        url: http://127.0.0.1:9/r4-plan\n` +
        '        event_types: [exception.created]\n        status: disabled\n',
    );
    expect(await svc.run(['plan', '-f', file, '--ndjson'])).toEqual({
      code: 0,
      stdout: '',
      stderr: `no changes: the live state of 1 tenant matches ${file}\n`,
    });
    const applied = await svc.run(['apply', '-f', file, '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    await viewerBack();
    const after = await webhookNow(svc.sandbox(), id);
    expect([after.status, after.disabled_reason]).toEqual(['disabled', REASON]);
  });
});

describe('a just-in-time admin on call replays dead letters (R1)', () => {
  it('the dry run and the run agree: each entry replayed', async () => {
    const end = isoSeconds(svc.sandbox().state.clock.now() + 2 * 3600_000);
    await grant('usr_compliance', 'tenant_admin', end);
    const env = { SVC_TOKEN: tokenOf('usr_compliance') };
    const seeded = SEEDED_WEBHOOKS.exceptions;
    const dry = await svc.run(['webhooks', 'replay', seeded, '--dlq', '--dry-run', '--ndjson'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    const planned = ndjson(dry.stdout).filter((r) => r.plan !== undefined);
    expect(planned.length).toBeGreaterThan(0);
    expect(new Set(planned.map((r) => r.plan))).toEqual(new Set(['replay']));
    const run = await svc.run(['webhooks', 'replay', seeded, '--dlq', '--no-wait', '--ndjson'], { env });
    expect(run.code, run.stderr).toBe(0);
    const rows = ndjson(run.stdout).filter((r) => r.status !== undefined);
    expect(rows.map((r) => r.status)).toEqual(planned.map(() => 'ok'));
  });
});

describe('svc webhooks listen --webhook puts back the owner too (R5)', () => {
  it("a lead's session on the admin's webhook leaves it the admin's", async () => {
    const seeded = SEEDED_WEBHOOKS.exceptions;
    await grant('usr_lead', hookmgr);
    const before = await webhookNow(svc.sandbox(), seeded);
    expect(before.owner_id).toBe('usr_admin');
    const stop = new AbortController();
    const { ctx, stderr } = svc.context({
      signal: stop.signal,
      env: { SVC_TOKEN: tokenOf('usr_lead') },
      now: Date.now(),
    });
    const running = runListen(ctx, parseListen({ webhook: seeded, port: '0' }));
    await expect.poll(stderr, { timeout: 10_000 }).toContain(`webhook ${seeded} delivers here`);
    expect((await webhookNow(svc.sandbox(), seeded)).owner_id).toBe('usr_lead');
    stop.abort();
    await running;
    expect(stderr()).toContain(
      `✓ webhook ${seeded} is back: ${before.url}, signing with the secret it had before this session (the session's secret no longer works)\n`,
    );
    const after = await webhookNow(svc.sandbox(), seeded);
    expect([after.url, after.owner_id, after.status]).toEqual([before.url, 'usr_admin', 'enabled']);
  }, 30_000);

  it('when the owner before would not keep it, the listener keeps it, and svc says so', async () => {
    const made = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
      token: tokenOf('usr_viewer'),
      tenant: TENANT,
      body: {
        url: 'http://127.0.0.1:9/r5-viewer',
        event_types: ['exception.created'],
        idempotency_key: 'r5v',
      },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.id as string;
    const stop = new AbortController();
    const { ctx, stderr } = svc.context({
      signal: stop.signal,
      env: { SVC_TOKEN: tokenOf('usr_lead') },
      now: Date.now(),
    });
    const running = runListen(ctx, parseListen({ webhook: id, port: '0' }));
    await expect.poll(stderr, { timeout: 10_000 }).toContain(`webhook ${id} delivers here`);
    // The viewer loses exception.read while the lead listens: given back, the webhook would stop.
    expect((await admin(svc.sandbox(), 'DELETE', '/v1/users/usr_viewer/roles/tenant_viewer')).status).toBe(
      200,
    );
    stop.abort();
    await running;
    expect(stderr()).toContain(
      `✓ webhook ${id} is back: http://127.0.0.1:9/r5-viewer, signing with the secret it had before this session (the session's secret no longer works)\n` +
        `warning: webhook ${id} is now owned by usr_lead, not usr_viewer as before this session (the platform gives it back only ` +
        'to an owner who would keep it): it delivers only while usr_lead holds exception.read\n',
    );
    const after = await webhookNow(svc.sandbox(), id);
    expect([after.owner_id, after.status]).toEqual(['usr_lead', 'enabled']);
    await viewerBack();
  }, 30_000);
});
