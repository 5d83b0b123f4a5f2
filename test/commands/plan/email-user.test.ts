import { describe, expect, it } from 'vitest';
import { DEMO_ORG } from '../../../src/sandbox/seed.js';
import { writeFile } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// attack20 F4: an access file's grant naming its user by e-mail was "not a user of acme-treasury",
// with no word that it is the e-mail of one.
const svc = useSandboxContext({}, { tenant: false });
const dir = useTempDir('svc-plan-email-');

describe('svc plan: a grant to an e-mail address', () => {
  it('says it is an e-mail address and how to find the id', async () => {
    const file = writeFile(
      dir,
      'email.yaml',
      'version: 1\nblocks:\n  - tenants: acme-treasury\n    grants:\n      - user: lead@acme.example\n        role: tenant_analyst\n',
    );
    const { code, stdout, stderr } = await svc.run(['plan', '-f', file]);
    expect([code, stdout]).toEqual([2, '']);
    expect(stderr.split('\n')[0]).toBe(
      `${file}:5: user "lead@acme.example" is not a user of acme-treasury: it is an e-mail address, not a user id (usr_…); find its id with: svc users ls --all --ndjson | jq -r 'select(.email == "lead@acme.example") | .id'`,
    );
  });

  // review20c F3: a server whose user ids are e-mail addresses. Plan asks the server, which knows
  // the user; apply then grants it, not refusing mid-run what plan passed.
  it('a user the server knows by an e-mail-shaped id: plan passes it and apply grants it', async () => {
    svc.sandbox().state.identity.addUser({
      id: 'ops@corp.example',
      name: 'Ops Mailbox',
      email: 'ops-team@corp.example',
      org_id: DEMO_ORG,
      org_role: null,
    });
    const file = writeFile(
      dir,
      'mailed.yaml',
      'version: 1\nblocks:\n  - tenants: acme-treasury\n    grants:\n      - user: ops@corp.example\n        role: tenant_viewer\n        expires_in: 8h\n        justification: ops mailbox\n',
    );
    const plan = await svc.run(['plan', '-f', file]);
    expect(plan.code).toBe(10);
    const apply = await svc.run(['apply', '-f', file, '--yes']);
    expect([apply.code, apply.stderr]).toEqual([0, expect.not.stringContaining('e-mail')]);
    const held = await svc.run([
      'roles',
      'assignments',
      'ops@corp.example',
      '--tenant',
      'acme-treasury',
      '--ndjson',
    ]);
    expect([held.code, held.stdout]).toEqual([0, expect.stringContaining('"role_id":"tenant_viewer"')]);
  });
});
