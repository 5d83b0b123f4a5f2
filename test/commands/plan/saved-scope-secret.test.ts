import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as, LABS, writeFile } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// s18 mask18 #4: a saved plan names the webhooks its file manages in each tenant's scope, by URL
// as the file has it. A webhook whose `?token=` URL the plan leaves unchanged was in the file
// only there, and svc plan --out wrote it with the umask (0644) and did not say it holds a secret.
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = useTempDir('svc-plan-scope-secret-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const URL_WITH_TOKEN = 'https://hooks.example.com/scope?token=s3cr3tScopeToken777';

describe('svc plan --out, a webhook URL with a secret only in the scope', () => {
  it('writes the plan 0600 and says so', async () => {
    await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', {
      url: URL_WITH_TOKEN,
      event_types: ['exception.created'],
    });
    const file = writeFile(
      dir,
      'scope.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - name: scope-role\n        permissions: [exception.read]\n    webhooks:\n      - url: "${URL_WITH_TOKEN}"\n        event_types: [exception.created]\n`,
    );
    const saved = join(dir, 'scope.plan.json');
    const r = await svc.run(['plan', '-f', file, '--out', saved]);
    expect(r.code, r.stderr).toBe(10);
    expect(readFileSync(saved, 'utf8')).toContain(URL_WITH_TOKEN);
    expect(
      JSON.parse(readFileSync(saved, 'utf8')).tenants[0].changes.map((c: { kind: string }) => c.kind),
    ).toEqual(['role']);
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    expect(r.stderr).toContain(
      `plan saved to ${saved} (0600: a webhook URL in it carries a secret; keep it private); `,
    );
  });
});
