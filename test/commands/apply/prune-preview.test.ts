import { describe, expect, it } from 'vitest';
import { writeFile } from '../../helpers/ascode.js';
import { ACME, adminGrant, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// attack29a F7: svc apply --prune's preview marked a removal "— only with --prune", the same line
// as without --prune, though with it the removal is made (and counted in the question).
const svc = useSandboxContext({}, { tenant: false });
const dir = useTempDir('svc-apply-prune-');

describe('svc apply --prune: the preview of a removal', () => {
  it('is not marked "only with --prune" when --prune is given', async () => {
    await adminGrant(svc.sandbox(), ACME, 'usr_lead', 'tenant_admin');
    const file = writeFile(
      dir,
      'acc.yaml',
      'version: 1\nmanage:\n  grants: listed-roles\nblocks:\n  - tenants: acme-treasury\n    grants:\n      - user: usr_admin\n        role: tenant_admin\n      - user: usr_analyst\n        role: tenant_admin\n        justification: on call\n',
    );
    const line = '  - revoke tenant_admin from usr_lead: held permanently';
    const pruned = await svc.run(['apply', '-f', file, '--prune'], { tty: true, answers: [false] });
    expect(pruned.stderr).toContain(`${line}\n`);
    expect(pruned.stderr).not.toContain('only with --prune');
    const kept = await svc.run(['apply', '-f', file], { tty: true, answers: [false] });
    expect(kept.stderr).toContain(`${line}  — only with --prune\n`);
  });
});
