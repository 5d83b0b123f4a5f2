import { beforeAll, describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile, writes } from '../../helpers/ascode.js';
import { fixedClock } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// escalate13 F1: webhook.manage without exception.read is refused a webhook of exception kinds
// (its data is what exception.read guards). svc plan predicts it as it predicts the other
// hand-out rules: the change is planned as refused, and svc apply does not start.
const svc = useSandboxContext({ users: 5 });
const dir = useTempDir('svc-plan-channel-');
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

// Review 15c R2: creating a webhook hands out its signing secret, a standing credential, so it
// takes webhook.manage held without an end date (as rotating it does); svc plan predicts it.
describe('svc plan of a webhook by a just-in-time webhook manager', () => {
  it('plans the creation as refused, naming when webhook.manage ends', async () => {
    const sandbox = svc.sandbox();
    const readers = await as(sandbox, LABS, 'POST', '/v1/roles', {
      name: 'plan-hook-readers',
      permissions: ['role.read', 'exception.read'],
    });
    const managers = await as(sandbox, LABS, 'POST', '/v1/roles', {
      name: 'plan-hook-jit',
      permissions: ['webhook.manage', 'webhook.read'],
    });
    const until = sandbox.state.clock.iso(sandbox.state.clock.now() + 3_600_000);
    await as(sandbox, LABS, 'POST', `/v1/users/${user(2)}/roles`, { role_id: readers.id });
    await as(sandbox, LABS, 'POST', `/v1/users/${user(2)}/roles`, {
      role_id: managers.id,
      expires_at: until,
      justification: 'incident 42',
    });
    const env = { SVC_TOKEN: sandbox.issueToken(user(2)).token, SVC_TENANT: LABS };
    const file = writeFile(
      dir,
      'jit-hook.yaml',
      'version: 1\nblocks:\n  - tenants: acme-labs\n    webhooks:\n      - url: https://erp.example.com/ingest\n        event_types: [exception.created]\n',
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { env });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'create',
        'https://erp.example.com/ingest',
        "the platform refuses it (insufficient_permission): a webhook's signing secret is a standing credential, like " +
          'an API key: creating a webhook (it hands you its first signing secret) takes webhook.manage held without an ' +
          `end date, and you hold it only until ${until}; have someone who holds it without an end date do it`,
      ],
    ]);
    // Review 16b B6: the closing warning's reasons include this one.
    expect(planned.stderr).toContain(
      'warning: svc apply refuses 1 of these changes: they would change your own grants, take away your own ' +
        'administration, leave a tenant without an administrator, stop the API key you are applying with, hand out more than you hold, need a permission ' +
        'held without an end date that you hold only until a date (a webhook, an OAuth client), or create or change an OAuth client with an API key ' +
        'or a third-party client\'s token (only a user with their own login may) (see "refused")\n',
    );
  });
});
