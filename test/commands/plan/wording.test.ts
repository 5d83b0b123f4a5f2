import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { as, user, writeFile } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// What `svc plan` says (exploratory test s10, ascode): a problem of one entry in several tenants
// names each tenant once, however many users the entry grants to; a role the file declares with
// an entry that is not valid is said to be that, not missing; a permanent grant is "held permanently".
const svc = useSandboxContext({ users: 10 }, { tenant: false });
const dir = useTempDir('svc-plan-wording-');

describe('svc plan wording', () => {
  it('names each tenant once, and a declared role whose entry is not valid as such', async () => {
    const file = writeFile(
      dir,
      'rich.yaml',
      `version: 1
blocks:
  - tenants: [acme-treasury, acme-apac]
    roles:
      - name: Ünï ☃ desk
        permissions: [rule.read]
    grants:
      - users: [${user(1)}, ${user(2)}]
        role: Ünï ☃ desk
      - users: [${user(1)}, ${user(2)}]
        role: opz
`,
    );
    const { code, stdout, stderr } = await svc.run(['plan', '-f', file]);
    expect([code, stdout]).toEqual([2, '']);
    expect(stderr.split('\n').filter((l) => l.startsWith(`${file}:`))).toEqual([
      `${file}:5: "name" "Ünï ☃ desk" is not valid: Lowercase letters, digits, _ and -; tenant_, org_, tenant- and org- are kept for built-in roles, id prefixes (role_, usr_, key_, …) for ids`,
      `${file}:8: role "Ünï ☃ desk" is not created: its entry at line 5 is not valid`,
      `${file}:10: role "opz" does not exist in acme-treasury, acme-apac`,
    ]);
  });

  it('a removal of a permanent grant reads "held permanently"', async () => {
    const labs = tenantId('acme-labs');
    await as(svc.sandbox(), labs, 'POST', `/v1/users/${user(3)}/roles`, { role_id: 'tenant_auditor' });
    const file = writeFile(
      dir,
      'a.yaml',
      `version: 1\nmanage: {grants: listed-roles}\nblocks:\n  - tenants: acme-labs\n    grants:\n      - {user: ${user(4)}, role: tenant_auditor}\n`,
    );
    const { code, stdout } = await svc.run(['plan', '-f', file]);
    expect(code).toBe(10);
    expect(stdout.split('\n').filter((l) => l.includes('revoke'))).toEqual([
      `acme-labs\tgrant\trevoke\t${user(3)} tenant_auditor\t\t\theld permanently; only with --prune`,
    ]);
  });
});
