import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ACME, adminGrant, call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// attack29a F3: an unedited export of a webhook the platform stopped planned a change ("disabled by
// the platform" → "disabled"), and svc apply then cleared its disabled_reason. review29d H1: leaving
// status out of the export (F3's first fix) made a restore create the webhook enabled, delivering
// again. The export writes `status: disabled`, and plan reads it as no change against a stopped
// webhook (it is disabled); a restore creates it disabled; an edit to enabled still enables it.
const svc = useSandboxContext({}, { tenant: false });
const dir = useTempDir('svc-export-stopped-');

/** A webhook of usr_rule_author's, stopped by the platform when their tenant_admin is revoked. */
async function stoppedWebhook(url: string, key: string): Promise<string> {
  const sandbox = svc.sandbox();
  const granted = await adminGrant(sandbox, ACME, 'usr_rule_author', 'tenant_admin');
  const made = await call(sandbox, 'POST', '/v1/webhooks', {
    token: sandbox.issueToken('usr_rule_author').token,
    tenant: ACME,
    body: { url, event_types: ['exception.created'], idempotency_key: key },
  });
  expect(made.status, made.text).toBe(201);
  const revoked = await call(sandbox, 'DELETE', `/v1/users/usr_rule_author/roles/${granted.role_id}`, {
    token: sandbox.adminToken,
    tenant: ACME,
  });
  expect(revoked.status, revoked.text).toBe(200);
  return made.body.id as string;
}

async function exportWebhooks(name: string): Promise<string> {
  const output = join(dir, name);
  const exported = await svc.run(['export', '--tenant', 'acme-treasury', '--only', 'webhooks', '-o', output]);
  expect(exported.code, exported.stderr).toBe(0);
  return output;
}

async function liveWebhook(url: string) {
  const sandbox = svc.sandbox();
  const r = await call(sandbox, 'GET', '/v1/webhooks?limit=100', { token: sandbox.adminToken, tenant: ACME });
  const items = r.body.items as Array<{
    id: string;
    url: string;
    status: string;
    disabled_reason?: string | null;
  }>;
  return items.filter((w) => w.url === url);
}

describe('svc export of a webhook the platform stopped', () => {
  it('writes status: disabled and plans no changes; an edit to enabled still plans its change', async () => {
    await stoppedWebhook('https://ra.example/h', 'sw-1');
    const output = await exportWebhooks('acc.yaml');
    const hooks = parseYaml(readFileSync(output, 'utf8')).blocks[0].webhooks as Array<{
      url: string;
      status?: string;
    }>;
    expect(hooks.find((w) => w.url === 'https://ra.example/h')?.status).toBe('disabled');
    expect(await svc.run(['plan', '-f', output])).toEqual({
      code: 0,
      stdout: '',
      stderr: `no changes: the live state of 1 tenant matches ${output}\n`,
    });
    const [before] = await liveWebhook('https://ra.example/h');
    expect(before?.disabled_reason).toBeTruthy();
    const text = readFileSync(output, 'utf8').replace(
      /( *)- url: "https:\/\/ra\.example\/h"\n((?:\1 {2}.*\n)*?)\1 {2}status: disabled\n/,
      (_all, indent: string, between: string) =>
        `${indent}- url: "https://ra.example/h"\n${between}${indent}  status: enabled\n`,
    );
    expect(text, readFileSync(output, 'utf8')).toContain('status: enabled');
    const edited = join(dir, 'edited.yaml');
    writeFileSync(edited, text);
    const plan = await svc.run(['plan', '-f', edited]);
    expect(plan.code).toBe(10);
    expect(plan.stdout).toContain('status: "disabled by the platform" → "enabled"');
  });

  it('a restore of the export creates the webhook disabled, not delivering (review29d H1)', async () => {
    const id = await stoppedWebhook('https://ra.example/restore', 'sw-2');
    const output = await exportWebhooks('restore.yaml');
    const sandbox = svc.sandbox();
    const deleted = await call(sandbox, 'DELETE', `/v1/webhooks/${id}`, {
      token: sandbox.adminToken,
      tenant: ACME,
    });
    expect(deleted.status, deleted.text).toBeLessThan(300);
    expect(await liveWebhook('https://ra.example/restore')).toEqual([]);
    const secrets = join(dir, 'secrets');
    const applied = await svc.run([
      'apply',
      '-f',
      output,
      '--create-missing',
      '--secret-dir',
      secrets,
      '--yes',
    ]);
    expect(applied.code, applied.stderr).toBe(0);
    const restored = await liveWebhook('https://ra.example/restore');
    expect(restored.map((w) => w.status)).toEqual(['disabled']);
  });
});
