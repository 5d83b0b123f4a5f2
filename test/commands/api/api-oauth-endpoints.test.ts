import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeTokens, createClient } from '../../helpers/oauth.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { tempDir } from '../../helpers/temp.js';

// The token example of `svc api --help` could never work: svc added the profile's Bearer token to
// POST /v1/oauth/token, which authenticates the client itself (RFC 6749 §2.3: client_secret_basic
// or client_secret_post), the server refused it, and svc said the *profile* was rejected ("run svc
// login", exit 3). The user's access token is not sent to the OAuth endpoints at all.
const svc = useSandboxContext();
const FORM = ['-H', 'Content-Type: application/x-www-form-urlencoded'];

async function refreshForm(secret?: string): Promise<string> {
  const client = await createClient(svc.sandbox());
  const tokens = await codeTokens(svc.sandbox(), client);
  expect(tokens.status).toBe(200);
  const form = new URLSearchParams({
    grant_type: 'refresh_token',
    client_id: client.client_id,
    client_secret: secret ?? client.client_secret,
    refresh_token: tokens.body.refresh_token,
  });
  const file = join(tempDir('svc-form-'), 'form.txt');
  writeFileSync(file, form.toString());
  return file;
}

describe('svc api POST /v1/oauth/token', () => {
  it("works as the help's example shows: the client's form, not the profile's token", async () => {
    const file = await refreshForm();
    const r = await svc.run(['api', 'POST', '/v1/oauth/token', ...FORM, '--input', file, '--debug']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i) });
    expect(r.stderr).not.toMatch(/^> authorization:/im);
  });

  it('a refused client is not "the profile was rejected; run svc login"', async () => {
    const file = await refreshForm('svc_cs_not-the-secret');
    const r = await svc.run(['api', 'POST', '/v1/oauth/token', ...FORM, '--input', file]);
    expect(r.code).toBe(3);
    const last = r.stderr.trimEnd().split('\n').at(-1)!;
    expect(last).toBe(
      'error: the client credentials in the request were rejected: client authentication failed; ' +
        '/v1/oauth/token authenticates the OAuth client, not your login: give client_id and client_secret in the form, ' +
        "or -H 'Authorization: Basic BASE64(client_id:client_secret)' without client_secret (one method, not both)",
    );
  });
});
