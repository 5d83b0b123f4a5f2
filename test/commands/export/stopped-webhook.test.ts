import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ACME, adminGrant, call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// attack29a F3: export wrote `status: disabled` for a webhook the platform stopped, so svc plan
// of the unedited export showed a change ("disabled by the platform" → "disabled") and svc apply
// then cleared its disabled_reason. The export leaves status out for it (left as the platform set
// it), and an edit to enabled or disabled still means what it says.
const svc = useSandboxContext({}, { tenant: false });
const dir = useTempDir('svc-export-stopped-');

describe('svc export of a webhook the platform stopped', () => {
  it('plans no changes, and an edit still plans its change', async () => {
    const sandbox = svc.sandbox();
    const granted = await adminGrant(sandbox, ACME, 'usr_rule_author', 'tenant_admin');
    const made = await call(sandbox, 'POST', '/v1/webhooks', {
      token: sandbox.issueToken('usr_rule_author').token,
      tenant: ACME,
      body: { url: 'https://ra.example/h', event_types: ['exception.created'], idempotency_key: 'sw-1' },
    });
    expect(made.status, made.text).toBe(201);
    const revoked = await call(sandbox, 'DELETE', `/v1/users/usr_rule_author/roles/${granted.role_id}`, {
      token: sandbox.adminToken,
      tenant: ACME,
    });
    expect(revoked.status, revoked.text).toBe(200);
    const output = join(dir, 'acc.yaml');
    const exported = await svc.run([
      'export',
      '--tenant',
      'acme-treasury',
      '--only',
      'webhooks',
      '-o',
      output,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const hooks = parseYaml(readFileSync(output, 'utf8')).blocks[0].webhooks as Array<{
      url: string;
      status?: string;
    }>;
    expect(hooks.find((w) => w.url === 'https://ra.example/h')).not.toHaveProperty('status');
    expect(await svc.run(['plan', '-f', output])).toEqual({
      code: 0,
      stdout: '',
      stderr: `no changes: the live state of 1 tenant matches ${output}\n`,
    });
    const text = readFileSync(output, 'utf8').replace(
      /( *)- url: "https:\/\/ra\.example\/h"\n/,
      (line, indent: string) => `${line}${indent}  status: disabled\n`,
    );
    expect(text, readFileSync(output, 'utf8')).toContain('status: disabled');
    const edited = join(dir, 'edited.yaml');
    writeFileSync(edited, text);
    const plan = await svc.run(['plan', '-f', edited]);
    expect(plan.code).toBe(10);
    expect(plan.stdout).toContain('status: "disabled by the platform" → "disabled"');
  });
});
