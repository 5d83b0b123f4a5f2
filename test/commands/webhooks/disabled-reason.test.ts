import { describe, expect, it } from 'vitest';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { admin, TENANT } from '../../helpers/webhooks.js';

// Session 13 (escalate13 F3): a webhook made with a service-role key kept delivering after the
// key was revoked. The platform now disables it and says why; svc webhooks get and ls show that,
// not the "enabled" the webhook was last set to.
const svc = useSandboxContext();

describe('a webhook the platform disabled', () => {
  it('svc webhooks get and ls show it disabled, with the reason and its owner', async () => {
    const sandbox = svc.sandbox();
    const issued = await admin(sandbox, 'POST', `/v1/tenants/${TENANT}/api-keys`, {
      kind: 'service_role',
      name: 'sync',
      justification: 'nightly sync job',
    });
    expect(issued.status, issued.text).toBe(201);
    const made = await call(sandbox, 'POST', '/v1/webhooks', {
      token: issued.body.key,
      tenant: TENANT,
      body: { url: 'http://127.0.0.1:9/keyhook', event_types: ['exception.created'], idempotency_key: 'kh1' },
    });
    expect(made.status, made.text).toBe(201);
    const revoked = await admin(sandbox, 'DELETE', `/v1/tenants/${TENANT}/api-keys/${issued.body.id}`);
    expect(revoked.status, revoked.text).toBe(200);

    // The key was given the webhook's signing secret, and it is gone: one warning (review18 R18-7).
    const rotate =
      `warning: webhook ${made.body.id}: its signing secret was given to the API key ${issued.body.id} it was set up through, ` +
      'which was revoked: whoever kept it can sign events its receiver trusts; rotate the secret: ' +
      `svc webhooks rotate-secret ${made.body.id} --secret-file PATH\n`;
    const got = await svc.run(['webhooks', 'get', made.body.id]);
    expect([got.code, got.stderr]).toEqual([0, rotate]);
    expect(got.stdout).toContain('\nstatus\tdisabled\n');
    expect(got.stdout).toContain(
      `\nowner\tusr_admin\ndisabled because\tthe API key ${issued.body.id} it was set up through was revoked; ` +
        'someone who holds exception.read without an end date can enable it again, and then owns it\n',
    );
    const listed = await svc.run(['webhooks', 'ls', '--json']);
    const row = JSON.parse(listed.stdout).find((w: { id: string }) => w.id === made.body.id);
    expect([row.status, row.disabled_reason]).toEqual(['disabled', expect.stringContaining('was revoked')]);

    // The admin, who holds exception.read without an end date, takes it over; the secret the key
    // was given is still the one it signs with, and svc says so (review18 R18-7).
    const enabled = await svc.run(['webhooks', 'update', made.body.id, '--enable']);
    expect([enabled.code, enabled.stderr]).toEqual([
      0,
      `✓ updated webhook ${made.body.id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (status)\n${rotate}`,
    ]);
    const after = JSON.parse((await svc.run(['webhooks', 'get', made.body.id, '--json'])).stdout);
    expect([after.status, after.disabled_reason, after.owner_id]).toEqual(['enabled', null, 'usr_admin']);
  });
});
