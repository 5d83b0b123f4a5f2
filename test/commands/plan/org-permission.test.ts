import { describe, expect, it } from 'vitest';
import { writeFile, writes } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// tenant.read is an organisation permission (findings escalate13 F2): the platform refuses it in a
// tenant custom role, so svc plan says so from the catalog's scope instead of promising the role.
const svc = useSandboxContext();
const dir = useTempDir('svc-plan-org-');

describe('svc plan: a custom role with an organisation permission', () => {
  it('is a problem of the file naming why, and nothing is changed (exit 2)', async () => {
    const file = writeFile(
      dir,
      'lister.yaml',
      `version: 1
blocks:
  - tenants: [acme-treasury]
    roles:
      - name: tenantlister
        permissions: [tenant.read, role.read]
`,
    );
    const before = await writes(svc.sandbox());
    const r = await svc.run(['plan', '-f', file]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    const [problem, summary] = r.stderr.split('\n');
    expect(problem).toBe(
      `${file}:5: role "tenantlister": tenant.read is an organisation permission (org_admin): no tenant role can grant it`,
    );
    expect(summary).toMatch(/^error: 1 problem in \S+; nothing was compared or changed; /);
    expect(await writes(svc.sandbox())).toBe(before);
  });
});
