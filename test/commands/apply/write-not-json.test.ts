import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// review20d (brief truth21 2): svc apply's creations answered 2xx with a body that is not JSON
// (text/plain "OK") were plain `bad_response` failures ("fix them"), though the platform made them;
// each is an unknown outcome, and the same command again settles them without a second one.
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = useTempDir('svc-apply-not-json-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let reshaping = true;
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  reshape: (method, _path, status) =>
    reshaping && method === 'POST' && status < 300
      ? { status, body: 'OK', headers: { 'content-type': 'text/plain' } }
      : undefined,
});

describe('svc apply: creations answered 2xx with a body that is not JSON', () => {
  it('are unknown outcomes (exit 7), the grant not attempted; the same command again makes nothing twice', async () => {
    const file = writeFile(
      dir,
      'w21.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - { name: w21-apply, permissions: [exception.read] }\n    grants:\n      - { user: ${user(1)}, role: w21-apply, justification: w21 }\n`,
    );
    const argv = ['apply', '-f', file, '--yes', '--journal', join(dir, 'j')];
    const env = { env: { SVC_BASE_URL: proxy().url } };
    const r = await svc.run([...argv, '--ndjson'], env);
    expect(r.code, r.stderr).toBe(7);
    const [role, grant] = ndjson(r.stdout);
    expect([role.kind, role.status, role.outcome, role.error.code]).toEqual([
      'role',
      'failed',
      'unknown',
      'invalid_response',
    ]);
    expect(role.error.message).toBe(
      `the server accepted the request (HTTP 201) but the server's answer to POST /v1/roles is not a JSON object (text/plain), so the outcome is unknown: check on the platform whether it was made`,
    );
    // The grant waits for its role: not attempted, never sent.
    expect([grant.kind, grant.error.code]).toEqual(['grant', 'dependency_failed']);
    reshaping = false;
    const again = await svc.run(argv, env);
    expect(again.code, again.stderr).toBe(0);
    const roles = (await as(svc.sandbox(), LABS, 'GET', '/v1/roles?limit=200')).items as Array<{
      id: string;
      name: string;
    }>;
    const made = roles.filter((one) => one.name === 'w21-apply');
    expect(made).toHaveLength(1);
    const held = (await as(svc.sandbox(), LABS, 'GET', `/v1/users/${user(1)}/roles`)).items as Array<{
      role_id: string;
    }>;
    expect(held.filter((a) => a.role_id === made[0]!.id)).toHaveLength(1);
  });
});
