import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_ORG } from '../../../src/sandbox/seed.js';
import { user, writeFile, writes } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// `svc plan` and `svc export` around the file (exploratory test s6, ascode): the plan is never
// saved over the access file; a saved plan given as the file is named as such; the file's own
// problems are reported without the platform (an offline lint); a tenant the caller sees as
// org_admin but holds no role in is refused for what it is (exit 4).
const svc = useSandboxContext({ users: 5, tenants: 1 }, { tenant: false });
const dir = useTempDir('svc-plan-files-');
const ACCESS = `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - user: ${user(4)}\n        role: tenant_viewer\n`;

describe('svc plan, the file and the plan', () => {
  it('refuses --out naming the -f file, before anything, and leaves the file as it was', async () => {
    const file = writeFile(dir, 'access.yaml', ACCESS);
    const before = await writes(svc.sandbox());
    const r = await svc.run(['plan', '-f', file, '--out', join(dir, '.', 'access.yaml')]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: --out ${join(dir, 'access.yaml')} is the access file given to -f; the plan would overwrite it; save the plan elsewhere, e.g. --out plan.json\n`,
    });
    expect(readFileSync(file, 'utf8')).toBe(ACCESS);
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('says a saved plan given with -f is a plan, and how to apply it', async () => {
    const file = writeFile(dir, 'a2.yaml', ACCESS);
    const saved = join(dir, 'a2.plan.json');
    expect((await svc.run(['plan', '-f', file, '--out', saved])).code).toBe(10);
    const r = await svc.run(['plan', '-f', saved]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${saved} is a plan saved by svc plan --out, not an access file; apply it with svc apply ${saved} (no -f), or give the access file it was planned from\n`,
    });
  });

  it('reports the file’s own problems when the platform cannot be reached (an offline lint)', async () => {
    const file = writeFile(
      dir,
      'offline.yaml',
      'version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - user: usr_a\n        rol: tenant_viewer\n',
    );
    const r = await svc.run(['plan', '-f', file], {
      env: { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_MAX_RETRIES: '0' },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^${file}:5: a grant needs "role"\\n${file}:6: "rol" is not a field of a grant \\(did you mean role\\?\\) \\(fields: user, users, role, expires_at, expires_in, justification\\)\\nerror: 2 problems in ${file}; the platform could not be read \\(cannot reach http://127\\.0\\.0\\.1:9.*\\), so tenants, roles, users and expiry times were not checked; nothing was compared or changed; fix them and run the command again\\n$`,
      ),
    );
  });
});

describe('a tenant the caller sees but holds no role in', () => {
  const org = { env: { SVC_ORG: DEMO_ORG } };
  it('svc plan says what the caller is there and what it needs (exit 4)', async () => {
    const file = writeFile(dir, 'org.yaml', 'version: 1\nblocks:\n  - tenants: bulk-000001\n');
    expect(await svc.run(['plan', '-f', file], org)).toEqual({
      code: 4,
      stdout: '',
      stderr: `${file}:3: you are org_admin in bulk-000001, which lets you see it but gives no role there; reading its access needs role.read, webhook.read and oauth_client.manage (tenant_admin has them)\nerror: 1 problem in ${file}; nothing was compared or changed; ask a tenant_admin there for a role, then log in again so your credential names the tenant\n`,
    });
  });

  it('svc export says the same (exit 4)', async () => {
    expect(await svc.run(['export', '--tenant', 'bulk-000001'], org)).toEqual({
      code: 4,
      stdout: '',
      stderr:
        'error: you are org_admin in bulk-000001, which lets you see it but gives no role there; reading its access needs role.read, webhook.read and oauth_client.manage (tenant_admin has them); ask a tenant_admin of bulk-000001 for a role, then log in again so your credential names the tenant\n',
    });
  });
});
