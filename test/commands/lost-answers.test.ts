import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_FAULTS } from '../../src/sandbox/plugins/faults.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { ACME, bulkUser, customRole, held } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { call, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

// A DELETE whose answer is lost after the platform applied it (a 503 after the change, a dropped
// connection) is retried; the retry must not turn the change svc made into "not held" or "not
// found". With an Idempotency-Key the platform answers the retry from its record; a platform that
// ignores the header answers 404, and svc says what it knows: the thing is gone, most likely by
// this command, the answer to it having been lost.
const svc = useSandboxContext({ users: 70 });
const honouring = useLossyProxy(svc.sandbox);
const ignoring = useLossyProxy(svc.sandbox, { ignoreDeleteKeys: true });
const dir = useTempDir('svc-lost-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const via = (proxy: () => { url: string }) => ({ env: { SVC_BASE_URL: proxy().url } });

let roles = 0;
/** A fresh custom role held by the given users (permanent grants, made outside svc). */
async function grantedRole(users: string[]): Promise<{ id: string; name: string }> {
  const name = `lost-${++roles}`;
  const id = await customRole(svc.sandbox(), name);
  for (const user of users) {
    const r = await call(svc.sandbox(), 'POST', `/v1/users/${user}/roles`, {
      token: svc.sandbox().adminToken,
      tenant: ACME,
      body: { role_id: id, justification: 'setup', idempotency_key: `grant-${name}-${user}` },
    });
    if (r.status !== 201) throw new Error(`grant: ${r.status} ${r.text}`);
  }
  return { id, name };
}

async function revocations(roleId: string): Promise<number> {
  const r = await call(
    svc.sandbox(),
    'GET',
    `/v1/audit_trail?action=role.revoked&role_id=${roleId}&limit=200`,
    {
      token: svc.sandbox().adminToken,
      tenant: ACME,
    },
  );
  return r.body.items.length;
}

async function webhook(tag: string): Promise<string> {
  const r = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
    token: svc.sandbox().adminToken,
    tenant: ACME,
    body: { url: `https://hooks.example.com/${tag}`, event_types: ['webhook.test'], idempotency_key: tag },
  });
  if (r.status !== 201) throw new Error(`webhook: ${r.status} ${r.text}`);
  return r.body.id;
}

describe('a revoke whose answer was lost after the platform made it', () => {
  it('is reported as revoked when the platform answers the retry from its record', async () => {
    const user = bulkUser(1);
    const role = await grantedRole([user]);
    honouring().reset();
    const r = await svc.run(['roles', 'revoke', user, role.name, '--yes'], via(honouring));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `^✓ revoked ${role.name} from ${user} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \\(audit trail aud_[0-9a-f]{24}\\)\\n$`,
      ),
    );
    // Both attempts carried the same key.
    const [first, second] = honouring().deletes;
    expect(first?.key).toMatch(/^svc_/);
    expect(second?.key).toBe(first?.key);
    expect(await held(svc.sandbox(), user)).toEqual([]);
    expect(await revocations(role.id)).toBe(1);
  });

  it.each([
    [
      'text',
      [],
      '',
      (user: string, name: string) =>
        `✓ ${user} no longer holds ${name} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016: the platform's answer to the revoke was lost (HTTP 503) and its retry found the grant gone (HTTP 404 assignment_not_found); most likely this command revoked it\n`,
    ],
  ])(
    'against a platform that ignores Idempotency-Key, says the grant is gone, not that it was never held (%s)',
    async (_mode, flags, stdout, stderr) => {
      const user = bulkUser(2);
      const role = await grantedRole([user]);
      ignoring().reset();
      const r = await svc.run(['roles', 'revoke', user, role.name, '--yes', ...flags], via(ignoring));
      expect([r.code, r.stdout, r.stderr]).toEqual([0, stdout, stderr(user, role.name)]);
      expect(await revocations(role.id)).toBe(1);
    },
  );

  it('--json: the grant named, and what is known of it', async () => {
    const user = bulkUser(3);
    const role = await grantedRole([user]);
    ignoring().reset();
    const r = await svc.run(['roles', 'revoke', user, role.name, '--yes', '--json'], via(ignoring));
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toEqual({
      user_id: user,
      role_id: role.id,
      role_name: role.name,
      outcome: 'gone_after_lost_answer',
      detail: `the platform's answer to the revoke was lost (HTTP 503) and its retry found the grant gone (HTTP 404 assignment_not_found); most likely this command revoked it`,
      assignment: null,
    });
  });
});

describe('svc roles revoke --file, answers lost', () => {
  it('with the sandbox losing answers at random after the change, every held row is revoked, none skipped', async () => {
    const users = Array.from({ length: 60 }, (_, i) => bulkUser(i + 10));
    const role = await grantedRole(users);
    const path = join(dir, 'revoke-60.csv');
    writeFileSync(path, `user,role\n${users.map((u) => `${u},${role.name}`).join('\n')}\n`);
    const sandbox = svc.sandbox();
    // svc sandbox start --fail-rate 0.3 --fault-phase after --fault-seed 7 --retry-after 0
    sandbox.faults.update({ fail_rate: 0.3, phase: 'after', seed: 7, retry_after: '0' });
    let r: Awaited<ReturnType<typeof svc.run>>;
    try {
      r = await svc.run(['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'], {
        env: { SVC_MAX_RETRIES: '10' },
      });
    } finally {
      sandbox.faults.update(NO_FAULTS);
    }
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^\d+ of these were done by an earlier attempt whose answer was lost; the platform answered with what it did then\n✓ 60 revoked in Acme Treasury \(acme-treasury\) \(0\.0 s\)\n$/,
    );
    const rows = ndjson(r.stdout);
    expect(rows.filter((row) => row.status === 'ok')).toHaveLength(60);
    expect(rows.some((row) => row.replayed === true)).toBe(true);
    expect(await revocations(role.id)).toBe(60);
  });

  it('against a platform that ignores Idempotency-Key, counts the gone grants as revoked and says how it knows', async () => {
    const users = [bulkUser(4), bulkUser(5)];
    const role = await grantedRole(users);
    const path = join(dir, 'revoke-2.csv');
    writeFileSync(path, `user,role\n${users.map((u) => `${u},${role.name}`).join('\n')}\n`);
    ignoring().reset();
    const r = await svc.run(
      ['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'],
      via(ignoring),
    );
    expect([r.code, r.stderr]).toEqual([
      0,
      '✓ 2 revoked (2 found done by a retry after the answer to the first attempt was lost) in Acme Treasury (acme-treasury) (0.0 s)\n',
    ]);
    expect(ndjson(r.stdout)).toEqual(
      users.map((user, i) => ({
        line: i + 2,
        status: 'ok',
        user,
        role: role.name,
        role_id: role.id,
        tenant_id: ACME,
        reason: 'gone_after_lost_answer',
        detail:
          "the platform's answer to DELETE was lost (HTTP 503) and its retry found nothing to delete (HTTP 404 assignment_not_found); most likely the lost attempt made the change",
      })),
    );
    expect(await revocations(role.id)).toBe(2);
  });
});

describe('svc webhooks delete, answer lost', () => {
  it('is reported as deleted when the platform answers the retry from its record', async () => {
    const id = await webhook('lost-honoured');
    honouring().reset();
    const r = await svc.run(['webhooks', 'delete', id, '--yes'], via(honouring));
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      `✓ deleted webhook ${id} (https://hooks.example.com/lost-honoured) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n`,
    ]);
  });

  it('against a platform that ignores Idempotency-Key, says the webhook is gone, not that it was not found', async () => {
    const id = await webhook('lost-ignored');
    ignoring().reset();
    const r = await svc.run(['webhooks', 'delete', id, '--yes'], via(ignoring));
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      `✓ webhook ${id} (https://hooks.example.com/lost-ignored) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 is gone: the platform's answer to the delete was lost (HTTP 503) and its retry found the webhook gone (HTTP 404 not_found); most likely this command deleted it\n`,
    ]);
  });
});

describe('svc apply --prune, answers lost', () => {
  const keep = async (name: string, tenant: string) => {
    const path = join(dir, name);
    writeFileSync(
      path,
      `version: 1\nmanage: { grants: all }\nblocks:\n  - tenants: ${tenant}\n    grants:\n      - { user: usr_admin, role: tenant_admin }\n`,
    );
    return path;
  };
  const real = { clock: { now: () => Date.now() } };

  it.each([
    ['honours', honouring, 'acme-ledger-uk', undefined],
    ['ignores', ignoring, 'acme-payments-eu', 'gone_after_lost_answer'],
  ] as const)(
    'reports pruned grants as done when the platform %s the key, never as not assigned',
    async (_how, proxy, tenant, reason) => {
      const id = tenantId(tenant);
      for (const user of [bulkUser(6), bulkUser(7)]) {
        const r = await call(svc.sandbox(), 'POST', `/v1/users/${user}/roles`, {
          token: svc.sandbox().adminToken,
          tenant: id,
          body: {
            role_id: 'tenant_viewer',
            justification: 'setup',
            idempotency_key: `prune-${tenant}-${user}`,
          },
        });
        expect(r.status, r.text).toBe(201);
      }
      const file = await keep(`${tenant}.yaml`, tenant);
      proxy().reset();
      const r = await svc.run(['apply', '-f', file, '--yes', '--prune', '--ndjson'], {
        ...real,
        // No SVC_TENANT: it would bound svc apply to acme-treasury.
        env: { SVC_BASE_URL: proxy().url, SVC_TENANT: undefined },
      });
      expect(r.code, r.stderr).toBe(0);
      const rows = ndjson(r.stdout);
      expect(rows.map((row) => row.name).sort()).toEqual(
        expect.arrayContaining([`${bulkUser(6)} tenant_viewer`, `${bulkUser(7)} tenant_viewer`]),
      );
      for (const row of rows) {
        expect(row).toMatchObject({ action: 'revoke', status: 'ok' });
        expect(row.reason).toBe(reason);
      }
      expect(proxy().deletes.length).toBe(rows.length * 2);
    },
  );
});
