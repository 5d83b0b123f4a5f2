import { describe, expect, it } from 'vitest';
import { ndjson } from '../../helpers/context.js';
import { advanceClock, call, useSandboxContext } from '../../helpers/sandbox.js';
import { admin, TENANT } from '../../helpers/webhooks.js';

// Session 19: a webhook still signing with the secret an API key (or OAuth client) that is gone was
// given (rotation_reason, review18 R18-7) said so only in a warning, which a script reading the
// record (or a log keeping stdout only) lost; --json had it, the record did not.
const svc = useSandboxContext();
const MINUTE = 60_000;

describe('svc webhooks get of a webhook whose secret went to a revoked key', () => {
  it.each(['tty', 'tsv', 'json', 'ndjson'] as const)('shows why to rotate it as a row (%s)', async (mode) => {
    const sandbox = svc.sandbox();
    const issued = await admin(sandbox, 'POST', `/v1/tenants/${TENANT}/api-keys`, {
      kind: 'service_role',
      name: `sync-${mode}`,
      justification: 'nightly sync job',
    });
    expect(issued.status, issued.text).toBe(201);
    const made = await call(sandbox, 'POST', '/v1/webhooks', {
      token: issued.body.key,
      tenant: TENANT,
      body: {
        url: 'http://127.0.0.1:9/keyhook',
        event_types: ['exception.created'],
        idempotency_key: `rr-${mode}`,
      },
    });
    expect(made.status, made.text).toBe(201);
    const revoked = await admin(sandbox, 'DELETE', `/v1/tenants/${TENANT}/api-keys/${issued.body.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    const id: string = made.body.id;
    const key: string = issued.body.id;
    const read = await admin(sandbox, 'GET', `/v1/webhooks/${id}`);
    const at: string = read.body.created_at;
    const reason =
      `its signing secret was given to the API key ${key} it was set up through, which was revoked: ` +
      'whoever kept it can sign events its receiver trusts; rotate the secret';
    const disabled = `the API key ${key} it was set up through was revoked; someone who holds exception.read without an end date can enable it again, and then owns it`;
    const warning = `warning: webhook ${id}: ${reason}: svc webhooks rotate-secret ${id} --secret-file PATH\n`;
    const flags = mode === 'json' ? ['--json'] : mode === 'ndjson' ? ['--ndjson'] : [];
    // Five minutes later on both clocks: a terminal's relative times count from the platform's (attack22 F1).
    await advanceClock(sandbox, 300);
    const r = await svc.run(['webhooks', 'get', id, ...flags], {
      ...(mode === 'tty' ? { tty: true, columns: 400 } : {}),
      now: Date.parse(at) + 5 * MINUTE,
    });
    expect([r.code, r.stderr]).toEqual([0, warning]);
    if (mode === 'json' || mode === 'ndjson') {
      const [answer] = mode === 'json' ? [JSON.parse(r.stdout)] : ndjson(r.stdout);
      expect(answer).toEqual(read.body);
      expect(answer.rotation_reason).toBe(reason);
      return;
    }
    const rows: Array<[string, string]> =
      mode === 'tty'
        ? [
            ['id', id],
            ['url', 'http://127.0.0.1:9/keyhook'],
            ['description', '-'],
            ['event types', 'exception.created'],
            ['status', 'disabled'],
            ['max attempts', '5'],
            ['created', `${at} (5 minutes ago)`],
            ['updated', `${at} (5 minutes ago)`],
            ['secret rotated', '-'],
            ['previous secret until', '-'],
            ['owner', 'usr_admin'],
            ['disabled because', disabled],
            ['secret at risk', reason],
          ]
        : [
            ['id', id],
            ['url', 'http://127.0.0.1:9/keyhook'],
            ['description', ''],
            ['event types', 'exception.created'],
            ['status', 'disabled'],
            ['max attempts', '5'],
            ['created', at],
            ['updated', at],
            ['secret rotated', ''],
            ['previous secret until', ''],
            ['previous secrets', ''],
            ['owner', 'usr_admin'],
            ['disabled because', disabled],
            ['secret at risk', reason],
          ];
    expect(r.stdout).toBe(
      rows
        .map(([label, value]) => (mode === 'tty' ? `${label.padEnd(23)}${value}\n` : `${label}\t${value}\n`))
        .join(''),
    );
  });

  it('a webhook made with your own login has no such row in a terminal, and an empty one in TSV', async () => {
    const made = await admin(svc.sandbox(), 'POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:9/own',
      event_types: ['exception.created'],
    });
    expect(made.status, made.text).toBe(201);
    const tty = await svc.run(['webhooks', 'get', made.body.id], { tty: true, columns: 200 });
    expect([tty.code, tty.stderr]).toEqual([0, '']);
    expect(tty.stdout).not.toContain('secret at risk');
    const tsv = await svc.run(['webhooks', 'get', made.body.id]);
    expect(tsv.stdout.endsWith('\nsecret at risk\t\n')).toBe(true);
  });
});
