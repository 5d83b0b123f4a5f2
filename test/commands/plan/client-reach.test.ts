import { beforeAll, describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile, writes } from '../../helpers/ascode.js';
import { fixedClock } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// escalate13 F6: oauth_client.manage alone is refused arming a client beyond the caller's own
// reach (a scope added, a redirect URI added to a client whose scopes reach further). svc plan
// predicts it as it predicts the other hand-out rules: the change is planned as refused, and svc
// apply does not start.
const svc = useSandboxContext({ users: 5 });
const dir = useTempDir('svc-plan-client-reach-');
let manager: Record<string, string>;

beforeAll(async () => {
  const sandbox = svc.sandbox();
  const role = await as(sandbox, LABS, 'POST', '/v1/roles', {
    name: 'oauthmgr',
    permissions: ['role.read', 'oauth_client.manage', 'reconciliation.read'],
  });
  await as(sandbox, LABS, 'POST', `/v1/users/${user(1)}/roles`, { role_id: role.id });
  await as(sandbox, LABS, 'POST', '/v1/oauth/clients', {
    name: 'Acme BI',
    redirect_uris: ['https://bi.acme.example/cb'],
    scopes: ['read:exceptions'],
  });
  manager = { SVC_TOKEN: sandbox.issueToken(user(1)).token, SVC_TENANT: LABS };
});

const FILE = `version: 1
manage:
  oauth_clients: all
blocks:
  - tenants: acme-labs
    oauth_clients:
      - name: Acme BI
        redirect_uris: [https://bi.acme.example/cb, http://127.0.0.1/cb]
        scopes: [read:exceptions]
      - name: Holder admin
        redirect_uris: [http://127.0.0.1/cb]
        scopes: [admin]
      - name: Holder reads
        redirect_uris: [http://127.0.0.1/cb]
        scopes: [read:reconciliations, read:tenants]
`;

describe('svc plan of OAuth clients as a manager holding only reconciliation.read', () => {
  it('plans the admin client and the re-pointed exceptions client as refused, naming what is lacking', async () => {
    const file = writeFile(dir, 'clients.yaml', FILE);
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { env: manager, clock: fixedClock() });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'update',
        'Acme BI',
        "the platform refuses it (insufficient_permission): adding or changing an OAuth client's redirect URIs hands out " +
          'what its scopes reach, so it takes the permissions they cover; you lack those of read:exceptions (exception.read); ' +
          'have someone who holds it do it',
      ],
      [
        'create',
        'Holder admin',
        'the platform refuses it (insufficient_permission): creating an OAuth client hands out what its scopes reach, so it ' +
          'takes the permissions they cover; you lack those of admin (every permission of the tenant; you lack 23 of them: ' +
          'account.read, account.write, ai_copilot.use, ai_copilot.use.fx, api_key.manage and 18 more); have someone who holds them do it',
      ],
      ['create', 'Holder reads', null],
    ]);
    const before = await writes(svc.sandbox());
    const applied = await svc.run(['apply', '-f', file, '--yes'], { env: manager });
    expect(applied.code).toBe(2);
    expect(await writes(svc.sandbox())).toBe(before);
  });
});
