import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ORG } from '../../../src/sandbox/seed.js';
import { assignments, bulkRunner, customRole } from '../../helpers/bulk.js';
import { ACME, useSandbox } from '../../helpers/sandbox.js';

// An e-mail address where a user id belongs (attack20 F4): a grant list from HR names people by
// e-mail; each row came back "user lead@acme.example not found" (the user exists), with no word
// of why. But the reference gives a user id no shape, and a server may use e-mail addresses as
// its ids (review20c F3): the id is sent, the server judges it, and its "not found" says how to
// find the id.

const sandbox = useSandbox();
const svc = bulkRunner(sandbox);
const FIND = `the id has the shape of an e-mail address: if it is the user's e-mail rather than their id, find its id with: svc users ls --all --ndjson | jq -r 'select(.email == "lead@acme.example") | .id'`;
// A user whose id, on this server, is an e-mail address.
const MAILED = 'ops@corp.example';

beforeAll(() => {
  sandbox().state.identity.addUser({
    id: MAILED,
    name: 'Ops Mailbox',
    email: 'ops-team@corp.example',
    org_id: DEMO_ORG,
    org_role: null,
  });
});

describe('an e-mail address as a user', () => {
  it('a file row the server knows no user by: its row fails, with how to find the id', async () => {
    const r = await svc.run(['roles', 'assign', '--file', '-', '--dry-run'], {
      stdin: 'user,role,expires_in,justification\nlead@acme.example,tenant_rule_author,8h,x\n',
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      7,
      `2\tfail\tlead@acme.example\ttenant_rule_author\t\t\tuser lead@acme.example not found; ${FIND}\n`,
      'dry run: 0 would be granted, 0 would be skipped, 1 would fail\nerror: 1 of 1 item would fail: line 2: user lead@acme.example not found; nothing was changed; fix them before running without --dry-run\n',
    ]);
  });

  it.each([
    [
      [
        'roles',
        'assign',
        'lead@acme.example',
        'tenant_analyst',
        '--expires-in',
        'never',
        '--justification',
        't',
      ],
    ],
    [['roles', 'revoke', 'lead@acme.example', 'tenant_analyst', '--yes']],
    [['roles', 'assignments', 'lead@acme.example']],
  ])('svc %j: the server\'s "not found", with how to find the id', async (argv) => {
    const r = await svc.run(argv);
    expect([r.code, r.stdout]).toEqual([5, '']);
    expect(r.stderr).toMatch(
      /^error: user lead@acme\.example not found \(HTTP 404, not_found, request req_\w+\); /,
    );
    expect(r.stderr.endsWith(`; ${FIND}\n`)).toBe(true);
  });

  // review20d D3: the hint's `svc users ls` asked the default profile, without the run's --tenant.
  it("the lookup keeps the run's --tenant", async () => {
    const r = await svc.run(['--tenant', ACME, 'roles', 'assignments', 'lead@acme.example']);
    expect(r.stderr).toContain(`find its id with: svc --tenant ${ACME} users ls --all --ndjson | jq -r `);
  });

  it('a server whose user ids are e-mail addresses: its own listing is granted, listed and revoked', async () => {
    const name = 'mailed-ids';
    const id = await customRole(sandbox(), name);
    const one = await svc.run([
      'roles',
      'assign',
      MAILED,
      name,
      '--expires-in',
      '8h',
      '--justification',
      'x',
    ]);
    expect(one.code).toBe(0);
    const listed = await svc.run(['roles', 'assignments', MAILED, '--ndjson']);
    expect([listed.code, listed.stderr]).toEqual([0, '']);
    expect(listed.stdout).toContain(`"user_id":"${MAILED}"`);
    const holders = await svc.run(['roles', 'assignments', '--role', name, '--ndjson']);
    const revoked = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], { stdin: holders.stdout });
    expect([revoked.code, revoked.stderr]).toEqual([0, expect.stringMatching(/^✓ 1 revoked in /)]);
    expect((await assignments(sandbox(), id)).active).toBe(0);
  });
});
