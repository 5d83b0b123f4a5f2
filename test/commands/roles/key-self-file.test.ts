import { beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { ACME, bulkRunner, bulkUser, customRole, fixedClock } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

// A dry run with an API key predicts the platform's self_assignment through the key (exploratory
// test s11): a key is seen through to the user who issued it, so the real run refused the rows
// granting that user a role, while the dry run, which could not tell who issued the key, planned
// them as grants. /v1/me now names a key's issuer (credential.issued_by); the dry run plans
// exactly those rows as the platform's refusal, and predicts nothing when a server does not say.
const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
const ISSUER = 'usr_admin';
const SELF = `this API key was issued by ${ISSUER}, and nobody grants roles to themselves; ask another administrator`;
let keyEnv: Record<string, string>;
let role = '';

beforeAll(async () => {
  const issued = await call(sandbox(), 'POST', `/v1/tenants/${ACME}/api-keys`, {
    token: sandbox().adminToken,
    tenant: ACME,
    body: {
      kind: 'service_role',
      name: 'provisioning',
      justification: 'nightly provisioning',
      idempotency_key: 'key-self-file-1',
    },
  });
  expect(issued.status, issued.text).toBe(201);
  keyEnv = { SVC_TOKEN: issued.body.key };
  role = 'key-granted';
  await customRole(sandbox(), role);
});

const grants = (...users: string[]) =>
  svc.file(
    `grants-${users.join('-')}.csv`,
    `user,role,expires_in,justification\n${users.map((u) => `${u},${role},8h,cover`).join('\n')}\n`,
  );

describe('svc roles assign --file --dry-run with an API key', () => {
  it('plans the rows granting the key’s issuer a role as the platform’s refusal; the real run refuses exactly those', async () => {
    const path = grants(bulkUser(1), ISSUER, bulkUser(2));
    const clock = fixedClock();
    const in8h = isoSeconds(clock.ms + 8 * 3_600_000);
    const dry = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--concurrency', '1'], {
      env: keyEnv,
      clock,
    });
    expect([dry.code, dry.stdout, dry.stderr]).toEqual([
      7,
      `2\tgrant\t${bulkUser(1)}\t${role}\t${in8h}\t\t\n` +
        `3\tfail\t${ISSUER}\t${role}\t\t\t${SELF}\n` +
        `4\tgrant\t${bulkUser(2)}\t${role}\t${in8h}\t\t\n`,
      'dry run: 2 would be granted, 0 would be skipped, 1 would fail\n' +
        `error: 1 of 3 items would fail: line 3: ${SELF}; nothing was changed; fix them before running without --dry-run\n`,
    ]);
    const lines = await svc.run(
      ['roles', 'assign', '--file', path, '--dry-run', '--ndjson', '--concurrency', '1'],
      {
        env: keyEnv,
        clock,
      },
    );
    expect([lines.code, ndjson(lines.stdout).map((r) => [r.line, r.plan, r.error ?? null])]).toEqual([
      7,
      [
        [2, 'grant', null],
        [3, 'fail', { code: 'self_assignment', message: SELF }],
        [4, 'grant', null],
      ],
    ]);

    // The real run: the platform refuses that row, in the same words, and grants the others.
    const real = await svc.run(
      ['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1', '--journal', `${path}.journal`],
      { env: keyEnv, clock },
    );
    expect(real.code).toBe(7);
    expect(ndjson(real.stdout).map((r) => [r.line, r.status, r.error ?? null])).toEqual([
      [2, 'ok', null],
      [3, 'failed', expect.objectContaining({ code: 'self_assignment', message: SELF })],
      [4, 'ok', null],
    ]);
  });
});

describe('a server whose /v1/me does not name the key’s issuer', () => {
  let me: Record<string, any> = {};
  const proxy = useLossyProxy(sandbox, {
    lose: () => false,
    refuse: (method, path) => (method === 'GET' && path === '/v1/me' ? { status: 200, body: me } : undefined),
  });

  it('predicts nothing: the row the platform will refuse is planned as a grant', async () => {
    const answer = await call(sandbox(), 'GET', '/v1/me', { token: keyEnv.SVC_TOKEN!, tenant: ACME });
    expect(answer.body.credential.issued_by).toBe(ISSUER);
    const { issued_by: _, ...credential } = answer.body.credential;
    me = { ...answer.body, credential };
    const path = grants(ISSUER, bulkUser(3));
    const r = await svc.run(
      ['roles', 'assign', '--file', path, '--dry-run', '--ndjson', '--concurrency', '1'],
      {
        env: { ...keyEnv, SVC_BASE_URL: proxy().url },
      },
    );
    expect([r.code, ndjson(r.stdout).map((row) => [row.line, row.plan, row.error ?? null])]).toEqual([
      0,
      [
        [2, 'grant', null],
        [3, 'grant', null],
      ],
    ]);
    expect(proxy().refused).toContain('GET /v1/me');
  });
});
