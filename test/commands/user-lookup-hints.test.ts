import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../helpers/bulk.js';
import { ACME, useSandbox } from '../helpers/sandbox.js';

// Every verb that takes a user id says how to find the id of an e-mail-shaped one the server does
// not know, as `roles assign/revoke/assignments` do (attack20 F4, review20d D3), through one helper
// (lookForUser, src/platform/errors.ts), keeping the run's --tenant (fix-list21 2).

const sandbox = useSandbox();
const svc = bulkRunner(sandbox);
const MAIL = 'lead@acme.example';
const find = (prefix: string) =>
  `the id has the shape of an e-mail address: if it is the user's e-mail rather than their id, find its id with: ${prefix} users ls --all --ndjson | jq -r 'select(.email == "${MAIL}") | .id'`;

describe('an unknown e-mail-shaped user id, in each verb that takes a user (fix-list21 2)', () => {
  it("audit ls --user: the note says how to find the id, with the run's --tenant", async () => {
    const r = await svc.run(['--tenant', ACME, 'audit', 'ls', '--user', MAIL]);
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr: `warning: no entries, and ${MAIL} is not a user of this tenant; ${find(`svc --tenant ${ACME}`)}\n`,
    });
  });

  it('users ls --id: the warning says how to find the id', async () => {
    const r = await svc.run(['users', 'ls', '--id', MAIL, '--id', 'usr_nosuch']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `warning: 2 of 2 ids are not users of the tenant: ${MAIL}, usr_nosuch; ${find('svc')}\n`,
    );
  });

  it.each([
    [
      [
        'roles',
        'assign',
        MAIL,
        'tenant_analyst',
        '--extend',
        '--expires-in',
        '1h',
        '--justification',
        't',
        '--yes',
      ],
    ],
  ])('svc %j: not found, with how to find the id', async (argv) => {
    const r = await svc.run(argv);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(find('svc'));
  });

  it('an id not shaped as an e-mail address keeps the usual hint', async () => {
    const r = await svc.run(['audit', 'ls', '--user', 'usr_analst']);
    expect(r.stderr).toBe(
      'warning: no entries, and usr_analst is not a user of this tenant; see `svc users ls` for the users of the tenant (`svc users ls --id ID` checks an id)\n',
    );
  });
});
