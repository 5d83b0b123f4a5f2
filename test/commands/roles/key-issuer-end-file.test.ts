import { beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { ACME, bulkRunner, bulkUser, held } from '../../helpers/bulk.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

// Exploratory test s13 (F3): a dry run with a service-role key whose issuer had been wound down
// (their permanent tenant_admin given an end) promised a permanent grant, exit 0, which the
// platform then made — the key counted as holding its role permanently. A key now acts only while
// its issuer holds its role's permissions without an end date, and the dry run says what the
// platform answers: the key is refused, and nothing is promised.
const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
const ISSUER = bulkUser(1);
let keyEnv: Record<string, string>;
let until = '';
let keys = 0;

async function admin(method: string, path: string, body: Record<string, unknown>) {
  const r = await call(sandbox(), method, path, {
    token: sandbox().adminToken,
    tenant: ACME,
    body: method === 'POST' ? { ...body, idempotency_key: `key-issuer-end-${++keys}` } : body,
  });
  expect(r.status, r.text).toBeLessThan(300);
  return r.body;
}

beforeAll(async () => {
  await admin('POST', '/v1/roles', {
    name: 'ops',
    permissions: ['account.write', 'role.assign', 'role.read'],
  });
  await admin('POST', `/v1/users/${ISSUER}/roles`, {
    role_id: 'tenant_admin',
    justification: 'second admin',
  });
  const issued = await call(sandbox(), 'POST', `/v1/tenants/${ACME}/api-keys`, {
    token: sandbox().issueToken(ISSUER).token,
    tenant: ACME,
    body: {
      kind: 'service_role',
      name: 'sync',
      justification: 'nightly sync job key',
      idempotency_key: 'sk3',
    },
  });
  expect(issued.status, issued.text).toBe(201);
  keyEnv = { SVC_TOKEN: issued.body.key };
  const now = Date.parse((await call(sandbox(), 'GET', '/_sandbox/clock')).body.now);
  until = isoSeconds(now + 60 * 60_000);
  await admin('PATCH', `/v1/users/${ISSUER}/roles/tenant_admin`, {
    expires_at: until,
    justification: 'make it jit now',
  });
});

describe('svc roles assign --file --dry-run with a key whose issuer holds its role only until some time', () => {
  it('promises nothing: the platform refuses the key (exit 3), and the real run grants nothing', async () => {
    const path = svc.file('forever.csv', `user,role,expires_in\n${bulkUser(2)},ops,never\n`);
    const stopped =
      `this API key acts only while ${ISSUER}, who issued it, holds every permission of tenant_admin without an end date; ` +
      `they hold them only until ${until}: have someone who holds them without an end date issue a new key`;
    const dry = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--justification', 'x'], {
      env: keyEnv,
    });
    expect([dry.code, dry.stdout]).toEqual([3, '']);
    expect(dry.stderr).toBe(
      `error: SVC_TOKEN was rejected: ${stopped}; SVC_TOKEN overrides any stored login: unset it, or set it to a valid token\n`,
    );
    const real = await svc.run(['roles', 'assign', '--file', path, '--justification', 'x'], { env: keyEnv });
    expect(real.code).toBe(3);
    expect(await held(sandbox(), bulkUser(2))).toEqual([]);
  });
});
