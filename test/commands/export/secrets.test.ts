import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { as, user } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// svc export never writes a value its own file check refuses as a secret (exploratory test s6,
// ascode): it names each one and how to change it on the platform, and writes nothing (exit 2).
const svc = useSandboxContext({ users: 5 });
const dir = useTempDir('svc-export-secrets-');
const LEDGER = tenantId('acme-ledger-uk');

describe('svc export of a secret-shaped value', () => {
  it('refuses, listing each field and its fix, and writes nothing', async () => {
    const sandbox = svc.sandbox();
    await as(sandbox, LEDGER, 'POST', '/v1/roles', {
      name: 'sec-desc',
      description: 'old key whsec_0123456789abcdefABCDEF was rotated',
      permissions: ['exception.read'],
    });
    await as(sandbox, LEDGER, 'POST', `/v1/users/${user(1)}/roles`, {
      role_id: 'tenant_viewer',
      expires_at: '2031-01-01T00:00:00Z',
      justification: 'per ticket, token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnop',
    });
    const out = join(dir, 'ledger.yaml');
    expect(await svc.run(['export', '--tenant', 'acme-ledger-uk', '-o', out])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'acme-ledger-uk: role sec-desc: "description" looks like a secret; fix: svc --tenant acme-ledger-uk roles update sec-desc --description TEXT\n' +
        `acme-ledger-uk: grant ${user(1)} tenant_viewer: "justification" looks like a secret; fix: a justification cannot be edited: svc --tenant acme-ledger-uk roles revoke ${user(1)} tenant_viewer, then grant it again with another\n` +
        'error: 2 values of the live state look like secrets, which svc never writes to a file (and svc plan would refuse); nothing was written; change them on the platform (see above), then export again\n',
    });
    expect(existsSync(out)).toBe(false);
  });
});

// Review s11 f, M1: a webhook URL with a token in its query was written to the file unsaid, while
// the help said secrets are never written. It is written (the URL names the webhook), and said.
describe('svc export of a webhook whose URL carries a token', () => {
  it('writes the URL as the platform has it, and warns that the file holds a secret', async () => {
    const APAC = tenantId('acme-apac');
    const url = 'https://hooks.example.com/in?token=tok-0123456789abcdef&team=ops';
    const made = await as(svc.sandbox(), APAC, 'POST', '/v1/webhooks', {
      url,
      event_types: ['webhook.test'],
    });
    expect(made.url).toBe(url);
    const out = join(dir, 'apac.yaml');
    const r = await svc.run(['export', '--tenant', 'acme-apac', '--only', 'webhooks', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `warning: acme-apac: the URL of webhook ${made.id} (https://hooks.example.com/in?token=[redacted]&team=ops) carries a secret in it, and the file holds it as the platform has it: it is written 0600 (only you can read it); keep it private\n`,
    );
    expect(readFileSync(out, 'utf8')).toContain(url);
  });
});

// attack17 A3: the line naming a secret-shaped value named a webhook by its URL, printing the
// URL's token into the log, and then asked for WEBHOOK_ID. A webhook is named by id (its URL
// masked, as the 0600 warning names it), a client by id and name, and each fix is the command to run.
describe('svc export of a secret-shaped value of a webhook or client', () => {
  it('names each by id, masks the URL, and gives the command with the id', async () => {
    const LABS = tenantId('acme-labs');
    const hook = await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', {
      url: 'https://example.com/hooks/y?token=NEWTOKEN77777777',
      event_types: ['webhook.test'],
      description: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    const client = await as(svc.sandbox(), LABS, 'POST', '/v1/oauth/clients', {
      name: 'ledger-sync',
      description: 'old secret svc_cs_0123456789abcdefABCDEF',
      redirect_uris: ['https://app.example.com/cb'],
      scopes: ['read:exceptions'],
    });
    const r = await svc.run(['export', '--tenant', 'acme-labs', '--only', 'webhooks,oauth_clients']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      `acme-labs: webhook ${hook.id} (https://example.com/hooks/y?token=[redacted]): "description" looks like a secret; fix: svc --tenant acme-labs webhooks update ${hook.id} --description TEXT\n` +
        `acme-labs: OAuth client ${client.client_id} (ledger-sync): "description" looks like a secret; fix: svc --tenant acme-labs oauth update ${client.client_id} --description TEXT\n` +
        'error: 2 values of the live state look like secrets, which svc never writes to a file (and svc plan would refuse); nothing was written; change them on the platform (see above), then export again\n',
    );
  });
});
