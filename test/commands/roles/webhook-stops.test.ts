import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TENANT_PERMISSIONS } from '../../../src/api/permissions.js';
import { runRolesDelete } from '../../../src/commands/roles/delete.js';
import { parseRolesRevoke, runRolesRevoke } from '../../../src/commands/roles/revoke.js';
import { ConnectionError } from '../../../src/http/errors.js';
import { ACME, adminGrant, call, useSandboxContext } from '../../helpers/sandbox.js';

// attack29a F1: revoking a grant or deleting a role also stops the webhooks its user owns (the
// platform's rule: a webhook delivers only while its owner holds its kinds' read permission), and
// no question, dry run or ✓ said so. Each preview names them now, and the run reads back which
// the platform disabled.
const svc = useSandboxContext();

let hooks = 0;
/** A webhook of exception.created made by `user` (who then owns it); its id. */
async function ownedBy(user: string): Promise<string> {
  const made = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
    token: svc.sandbox().issueToken(user).token,
    tenant: ACME,
    body: {
      url: 'https://ra.example/h',
      event_types: ['exception.created'],
      idempotency_key: `ws-${++hooks}`,
    },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.id;
}

const RULE =
  "a webhook delivers only while its owner holds its kinds' read permission (and, set up through an API key, while the key acts), and stays stopped after they regain it";

describe('previews name the webhooks a revocation stops', () => {
  it('roles revoke asks naming them, and the run says which the platform disabled', async () => {
    await adminGrant(svc.sandbox(), ACME, 'usr_rule_author', 'tenant_admin');
    const id = await ownedBy('usr_rule_author');
    const { ctx, questions, stderr } = svc.context({ tty: true, answers: [true] });
    await runRolesRevoke(ctx, parseRolesRevoke('usr_rule_author', 'tenant_admin', {}));
    expect(questions).toEqual([
      `Revoke tenant_admin from usr_rule_author in Acme Treasury (acme-treasury)? This stops 1 webhook of usr_rule_author (${id}): ${RULE}.`,
    ]);
    expect(stderr()).toContain(
      `warning: the platform disabled 1 webhook of usr_rule_author (${id}): \`svc webhooks get ID\` says why and who may enable it again\n`,
    );
  });

  it('says it could not tell when the webhooks cannot be read', async () => {
    const { ctx, questions } = svc.context({ tty: true, answers: [false] });
    // Listing webhooks refused (a caller without webhook.read): the preview says it cannot tell.
    (await ctx.platform()).webhooks.listAll = async function* () {
      yield* [];
      throw new ConnectionError('webhooks not readable');
    };
    await expect(runRolesRevoke(ctx, parseRolesRevoke('usr_lead', 'tenant_lead', {}))).rejects.toThrow(
      'cancelled',
    );
    expect(questions).toEqual([
      `Revoke tenant_lead from usr_lead in Acme Treasury (acme-treasury)? svc could not tell which webhooks this stops (reading the webhooks or their owners' grants failed: webhooks not readable): ${RULE}.`,
    ]);
  });

  it("roles delete's question names them too", async () => {
    const role = await call(svc.sandbox(), 'POST', '/v1/roles', {
      token: svc.sandbox().adminToken,
      tenant: ACME,
      body: {
        name: 'ex-reader',
        permissions: ['exception.read', 'webhook.manage', 'webhook.read'],
        idempotency_key: 'ws-role',
      },
    });
    expect(role.status, role.text).toBe(201);
    await adminGrant(svc.sandbox(), ACME, 'usr_rule_author', role.body.id);
    const id = await ownedBy('usr_rule_author');
    const { ctx, questions, stderr } = svc.context({ tty: true, answers: [true] });
    await runRolesDelete(ctx, { role: 'ex-reader' });
    expect(questions).toEqual([
      `Delete the custom role ex-reader (${role.body.id}) in Acme Treasury (acme-treasury)? 1 user holds it and loses it at once. This stops 1 webhook of usr_rule_author (${id}): ${RULE}.`,
    ]);
    expect(stderr()).toContain(`warning: the platform disabled 1 webhook of usr_rule_author (${id})`);
  });
});

describe('roles revoke --file names them too', () => {
  it('in the dry run and the question, and reads back after', async () => {
    await adminGrant(svc.sandbox(), ACME, 'usr_rule_author', 'tenant_admin');
    const id = await ownedBy('usr_rule_author');
    const dir = svc.env().SVC_STATE_DIR as string;
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'ra2.csv');
    writeFileSync(file, 'user,role\nusr_lead,tenant_reviewer\nusr_rule_author,tenant_admin\n');
    const dry = await svc.run(['roles', 'revoke', '--file', file, '--dry-run']);
    expect(dry.stderr).toContain(`warning: the run stops 1 webhook of usr_rule_author (${id}): ${RULE}\n`);
    const { ctx, questions, stderr } = svc.context({ tty: true, answers: [true] });
    await runRolesRevoke(ctx, parseRolesRevoke(undefined, undefined, { file }));
    expect(questions).toEqual([
      `Revoke the 2 role assignments listed in ${file} that are held (a row whose grant is not is skipped), in Acme Treasury (acme-treasury)? This stops 1 webhook of usr_rule_author (${id}): ${RULE}.`,
    ]);
    expect(stderr()).toContain(`warning: the platform disabled 1 webhook of usr_rule_author (${id})`);
  });
});

// Last: it leaves usr_rule_author a custom role with exception.read.
describe('a webhook set up through an API key (review29d M1)', () => {
  it('roles revoke says svc could not tell when the revocation takes away what their API keys act with', async () => {
    // usr_rule_author keeps exception.read (a custom role) and loses tenant_admin, which their
    // service_role key acts with: the webhook set up through that key stops with the key.
    const role = await call(svc.sandbox(), 'POST', '/v1/roles', {
      token: svc.sandbox().adminToken,
      tenant: ACME,
      body: {
        name: 'ex-reader-key',
        permissions: ['exception.read', 'webhook.manage', 'webhook.read'],
        idempotency_key: 'ws-key-role',
      },
    });
    expect(role.status, role.text).toBe(201);
    await adminGrant(svc.sandbox(), ACME, 'usr_rule_author', role.body.id);
    await adminGrant(svc.sandbox(), ACME, 'usr_rule_author', 'tenant_admin');
    const issued = await call(svc.sandbox(), 'POST', `/v1/tenants/${ACME}/api-keys`, {
      token: svc.sandbox().issueToken('usr_rule_author').token,
      tenant: ACME,
      body: { kind: 'service_role', name: 'ws', justification: 'ledger sync', idempotency_key: 'ws-key' },
    });
    expect(issued.status, issued.text).toBe(201);
    const made = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
      token: issued.body.key as string,
      tenant: ACME,
      body: {
        url: 'https://ra.example/k',
        event_types: ['exception.created'],
        idempotency_key: 'ws-key-hook',
      },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.id as string;
    const { ctx, questions, stderr } = svc.context({ tty: true, answers: [true] });
    await runRolesRevoke(ctx, parseRolesRevoke('usr_rule_author', 'tenant_admin', {}));
    expect(questions).toEqual([
      `Revoke tenant_admin from usr_rule_author in Acme Treasury (acme-treasury)? svc could not tell whether this stops 1 webhook of usr_rule_author (${id}): it takes away what their API keys act with, and a webhook set up through one stops with it: ${RULE}.`,
    ]);
    expect(stderr()).toContain(`warning: the platform disabled 1 webhook of usr_rule_author (${id})`);
  });

  it('a key role’s permissions kept only through a grant with an end date: still could not tell (review29e M1)', async () => {
    // The platform stops a key whose issuer no longer holds its role's permissions *without an end
    // date*: tenant_admin's permissions kept through a custom role ending in 30 days do not keep it.
    const role = await call(svc.sandbox(), 'POST', '/v1/roles', {
      token: svc.sandbox().adminToken,
      tenant: ACME,
      body: { name: 'admin-for-a-month', permissions: [...TENANT_PERMISSIONS], idempotency_key: 'ws-month' },
    });
    expect(role.status, role.text).toBe(201);
    await adminGrant(svc.sandbox(), ACME, 'usr_rule_author', 'tenant_admin');
    const issued = await call(svc.sandbox(), 'POST', `/v1/tenants/${ACME}/api-keys`, {
      token: svc.sandbox().issueToken('usr_rule_author').token,
      tenant: ACME,
      body: { kind: 'service_role', name: 'ws2', justification: 'ledger sync', idempotency_key: 'ws2-key' },
    });
    expect(issued.status, issued.text).toBe(201);
    const month = new Date(Date.now() + 30 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await adminGrant(svc.sandbox(), ACME, 'usr_rule_author', role.body.id, month);
    const made = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
      token: issued.body.key as string,
      tenant: ACME,
      body: { url: 'https://ra.example/m', event_types: ['exception.created'], idempotency_key: 'ws2-hook' },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.id as string;
    const { ctx, questions, stderr } = svc.context({ tty: true, answers: [true] });
    await runRolesRevoke(ctx, parseRolesRevoke('usr_rule_author', 'tenant_admin', {}));
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain(
      `svc could not tell whether this stops 1 webhook of usr_rule_author (${id}): it takes away what their API keys act with`,
    );
    expect(stderr()).toContain(`warning: the platform disabled 1 webhook of usr_rule_author (${id})`);
  });
});
