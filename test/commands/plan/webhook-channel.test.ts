import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile, writes } from '../../helpers/ascode.js';
import { fixedClock } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// escalate13 F1: webhook.manage without exception.read is refused a webhook of exception kinds
// (its data is what exception.read guards). svc plan predicts it as it predicts the other
// hand-out rules: the change is planned as refused, and svc apply does not start.
const svc = useSandboxContext({ users: 5 });
const dir = mkdtempSync(join(tmpdir(), 'svc-plan-channel-'));
let manager: Record<string, string>;

beforeAll(async () => {
  const sandbox = svc.sandbox();
  const role = await as(sandbox, LABS, 'POST', '/v1/roles', {
    name: 'hookmgr',
    permissions: ['role.read', 'webhook.manage', 'webhook.read'],
  });
  await as(sandbox, LABS, 'POST', `/v1/users/${user(1)}/roles`, { role_id: role.id });
  manager = { SVC_TOKEN: sandbox.issueToken(user(1)).token, SVC_TENANT: LABS };
});

const FILE = `version: 1
blocks:
  - tenants: acme-labs
    webhooks:
      - url: https://hooks.example.com/exceptions
        event_types: [exception.created]
      - url: https://hooks.example.com/ping
        event_types: [webhook.test]
`;

describe('svc plan of webhooks as a webhook manager without exception.read', () => {
  it('plans the exception webhook as refused, naming the lacking permission; the test-only one is fine', async () => {
    const file = writeFile(dir, 'hooks.yaml', FILE);
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { env: manager, clock: fixedClock() });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'create',
        'https://hooks.example.com/exceptions',
        'the platform refuses it (insufficient_permission): creating a webhook sends event data to its URL, so it takes ' +
          'the permission that reads that data; you lack exception.read (exception.created): have someone who holds it do it',
      ],
      ['create', 'https://hooks.example.com/ping', null],
    ]);
    const before = await writes(svc.sandbox());
    const applied = await svc.run(['apply', '-f', file, '--yes'], { env: manager });
    expect(applied.code).toBe(2);
    expect(await writes(svc.sandbox())).toBe(before);
  });
});
