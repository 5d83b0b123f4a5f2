import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writes } from '../../helpers/ascode.js';
import { codeTokens, createClient } from '../../helpers/oauth.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { createWebhook, TENANT, webhookNow } from '../../helpers/webhooks.js';

// Session 17 (closing list, platform): `svc webhooks listen --webhook W` rotates W's signing
// secret, which only a user with their own login may do (403 user_required). With an API key it
// printed the commands that put W back, as if it were about to change it, and only then met the
// platform's refusal at the rotation; no test had it. GET /v1/me says what the caller is, so it is
// refused before anything starts: no listener, no capture directory, nothing to put back.
const svc = useSandboxContext();
const tmp = useTempDir('svc-listen-key-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let webhook = '';

beforeAll(async () => {
  webhook = (await createWebhook(svc.sandbox(), 'https://hooks.example/in')).id;
});

const HINT =
  "log in as a user (svc login) to listen with --webhook, or listen without it, verifying with the webhook's secret (--secret-file)";

describe('svc webhooks listen --webhook W by a caller who may not rotate its secret', () => {
  it('an API key: refused up front in one line naming the fix (exit 4), nothing changed', async () => {
    const minted = await call(svc.sandbox(), 'POST', '/_sandbox/api-keys', {
      body: { tenant_id: TENANT, kind: 'service_role' },
    });
    const capture = join(tmp, 'by-key');
    const before = { webhook: await webhookNow(svc.sandbox(), webhook), writes: await writes(svc.sandbox()) };
    const r = await svc.run(
      ['webhooks', 'listen', '--webhook', webhook, '--port', '0', '--capture', capture],
      {
        env: { SVC_TOKEN: minted.body.key, SVC_TENANT: TENANT },
      },
    );
    expect([r.code, r.stdout, r.stderr]).toEqual([
      4,
      '',
      `error: --webhook ${webhook} rotates its signing secret for the session, and rotating the secret of a webhook is for users; API keys cannot do it: a webhook's new signing secret would outlive the key; ask a user to do it with their own login; nothing was changed; ${HINT}\n`,
    ]);
    const json = await svc.run(['webhooks', 'listen', '--webhook', webhook, '--port', '0', '--json'], {
      env: { SVC_TOKEN: minted.body.key, SVC_TENANT: TENANT },
    });
    expect([json.code, JSON.parse(json.stderr).error.code]).toEqual([4, 'user_required']);
    expect(existsSync(capture)).toBe(false);
    expect(await writes(svc.sandbox())).toBe(before.writes);
    expect(await webhookNow(svc.sandbox(), webhook)).toEqual(before.webhook);
  });

  it("a third-party OAuth client's token: refused alike, naming the client", async () => {
    const vendor = await createClient(svc.sandbox(), { scopes: ['admin'] });
    const tokens = await codeTokens(svc.sandbox(), vendor, { scope: 'admin' });
    const before = await writes(svc.sandbox());
    const r = await svc.run(['webhooks', 'listen', '--webhook', webhook, '--port', '0'], {
      env: { SVC_TOKEN: tokens.body.access_token, SVC_TENANT: TENANT },
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      4,
      '',
      `error: --webhook ${webhook} rotates its signing secret for the session, and rotating the secret of a webhook is for users themselves, not an OAuth client acting for one (this token is ${vendor.client_id}'s): a webhook's new signing secret would outlive the client; ask the user to do it with their own login; nothing was changed; ${HINT}\n`,
    ]);
    expect(await writes(svc.sandbox())).toBe(before);
  });
});
