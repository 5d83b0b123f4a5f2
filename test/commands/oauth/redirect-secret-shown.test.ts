/**
 * attack21b F8: a redirect URI holding a secret (`?api_key=…`, `?client_secret=…`) was shown whole
 * in the audit trail — to a tenant_auditor, who is refused the client itself — and in `oauth
 * update`'s ✓ line, where a webhook URL's secret is masked in both. The sandbox now records a
 * client's redirect URIs masked as it records a webhook's URL, and svc masks any URL of an entry
 * it prints for people, and a redirect URI in an update's words, as it masks a webhook's.
 */
import { describe, expect, it } from 'vitest';
import type { AuditTrailEntry } from '../../../src/api/schemas/audit.js';
import { AUDIT_COLUMNS, changeText } from '../../../src/commands/audit/shared.js';
import { createClient } from '../../helpers/oauth.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const OLD = 'https://app.example/cb?api_key=RedirSecret123456';
const NEW = 'https://app.example/cb2?client_secret=AddedRedir98765';

async function auditorToken(): Promise<string> {
  const r = await call(svc.sandbox(), 'POST', '/_sandbox/tokens', { body: { user_id: 'usr_auditor' } });
  expect(r.status, r.text).toBe(200);
  return (r.body as { access_token: string }).access_token;
}

describe("a redirect URI's secret", () => {
  it("is masked in oauth update's ✓ line and in the audit trail a tenant_auditor reads", async () => {
    const client = await createClient(svc.sandbox(), { redirect_uris: [OLD] });
    const update = await svc.run(['oauth', 'update', client.client_id, '--redirect-uri', NEW]);
    expect([update.code, update.stderr]).toEqual([
      0,
      `✓ updated OAuth client ${client.client_id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (redirect_uris); removed the redirect URI https://app.example/cb?api_key=[redacted]\n`,
    ]);
    const again = await svc.run(['oauth', 'update', client.client_id, '--redirect-uri', NEW]);
    expect(again.stderr).toBe(
      `nothing changed: OAuth client ${client.client_id} already has exactly the redirect URIs https://app.example/cb2?client_secret=[redacted]\n`,
    );

    const env = { SVC_TOKEN: await auditorToken() };
    const refused = await svc.run(['oauth', 'get', client.client_id], { env });
    expect(refused.code).toBe(4);
    const listed = await svc.run(['audit', 'ls', '--target', client.client_id, '--oldest-first'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(
      listed.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t').slice(2, 3).concat(line.split('\t').slice(8))),
    ).toEqual([
      [
        'oauth_client.created',
        expect.stringMatching(/^redirect_uris \["https:\/\/app\.example\/cb\?api_key=\[redacted\]"\]; /),
      ],
      [
        'oauth_client.updated',
        'redirect_uris ["https://app.example/cb?api_key=[redacted]"] → ["https://app.example/cb2?client_secret=[redacted]"]',
      ],
    ]);
    const json = await svc.run(['audit', 'ls', '--target', client.client_id, '--json'], { env });
    expect(json.stdout).not.toMatch(/RedirSecret|AddedRedir/);
    expect(json.stdout).toContain('"https://app.example/cb2?client_secret=[redacted]"');
  });

  it('is masked in what svc prints of an entry a platform recorded whole (change, summary)', () => {
    const entry = {
      id: 'aud_1',
      created_at: '2026-11-26T00:00:00Z',
      action: 'oauth_client.updated',
      actor: 'usr_admin',
      summary: `OAuth client c (cli_1) updated: ${OLD}`,
      changes: ['redirect_uris'],
      before: { redirect_uris: [OLD] },
      after: { redirect_uris: [NEW] },
    } as unknown as AuditTrailEntry;
    expect(changeText(entry)).toBe(
      'redirect_uris ["https://app.example/cb?api_key=[redacted]"] → ["https://app.example/cb2?client_secret=[redacted]"]',
    );
    const summary = AUDIT_COLUMNS.find((c) => c.header === 'summary')!;
    expect(summary.value(entry)).toBe(
      'OAuth client c (cli_1) updated: https://app.example/cb?api_key=[redacted]',
    );
  });
});
