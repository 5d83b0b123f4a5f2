import { beforeAll, describe, expect, it } from 'vitest';
import { type Caller, clientChanges, codeTokens } from '../helpers/oauth.js';
import { call, useGrantRules } from '../helpers/sandbox.js';

// Session 14 (escalate13's OAuth finding, held just in time): a client's reach was judged on the
// permissions the caller held live, so a just-in-time admin could rotate an admin-scoped client's
// secret (or re-point it, or put `admin` into one) and keep the secret after the grant ended — a
// standing way back to admin. A client and its secret outlast any grant, as an API key and a
// webhook do: arming one takes the permissions its scopes reach held without an end date.
const { sandbox, key, admin, as, user, grant, inHours, customRole, refusal } =
  useGrantRules('oauth-reach-jit');

const TRUSTED_URI = 'https://bi.acme.example/cb';
const HOLDER_URI = 'http://127.0.0.1:34811/cb';
const JIT_ADMIN = user(1);
const VIEWER_AND_JIT_ADMIN = user(2);
const JIT_READER = user(3);

async function client(scopes: string[]) {
  const r = await call(sandbox(), 'POST', '/v1/oauth/clients', {
    ...admin(),
    body: { name: `BI ${key()}`, redirect_uris: [TRUSTED_URI], scopes, idempotency_key: key() },
  });
  expect(r.status, r.text).toBe(201);
  return r.body as { client_id: string; client_secret: string };
}

const create = (caller: Caller, scopes: string[]) =>
  call(sandbox(), 'POST', '/v1/oauth/clients', {
    ...caller,
    body: { name: `Holder ${key()}`, redirect_uris: [HOLDER_URI], scopes, idempotency_key: key() },
  });
const { patch, rotate, stored } = clientChanges(sandbox, key);

const ADMIN_UNTIL = (until: string) =>
  `you hold those of admin (every permission of the tenant; 26 of them: account.read, account.write, ai_copilot.use, ai_copilot.use.fx, api_key.manage and 21 more) only until ${until}; have someone who holds them without an end date do it`;

describe('a just-in-time admin cannot arm an OAuth client that outlasts the grant', () => {
  let until = '';
  beforeAll(async () => {
    until = inHours(2);
    await grant(JIT_ADMIN, 'tenant_admin', until);
  });

  it('refuses rotating, re-pointing, widening to admin and creating with admin, naming the end date; the old secret still works', async () => {
    const jit = as(JIT_ADMIN);
    const armed = await client(['read:reconciliations', 'admin']);
    const before = stored(armed.client_id);

    expect(refusal(await rotate(jit, armed.client_id))).toEqual([
      403,
      'insufficient_permission',
      `rotating an OAuth client's secret hands out what its scopes reach, which outlasts a just-in-time grant, so it takes the permissions they cover held without an end date; ${ADMIN_UNTIL(until)}`,
    ]);
    expect(refusal(await patch(jit, armed.client_id, { redirect_uris: [TRUSTED_URI, HOLDER_URI] }))).toEqual([
      403,
      'insufficient_permission',
      `adding or changing an OAuth client's redirect URIs hands out what its scopes reach, which outlasts a just-in-time grant, so it takes the permissions they cover held without an end date; ${ADMIN_UNTIL(until)}`,
    ]);
    const narrow = await client(['read:reconciliations']);
    expect(
      refusal(await patch(jit, narrow.client_id, { scopes: ['read:reconciliations', 'admin'] })),
    ).toEqual([
      403,
      'insufficient_permission',
      `putting scopes into an OAuth client hands out what they reach, which outlasts a just-in-time grant, so it takes the permissions they cover held without an end date; ${ADMIN_UNTIL(until)}`,
    ]);
    const clients = sandbox().state.oauth.clients.size;
    expect(refusal(await create(jit, ['admin']))).toEqual([
      403,
      'insufficient_permission',
      `creating an OAuth client hands out what its scopes reach, which outlasts a just-in-time grant, so it takes the permissions they cover held without an end date; ${ADMIN_UNTIL(until)}`,
    ]);
    expect(sandbox().state.oauth.clients.size).toBe(clients);
    expect(stored(armed.client_id)).toEqual(before);
    expect(stored(narrow.client_id).scopes).toEqual(['read:reconciliations']);
    const tokens = await codeTokens(sandbox(), armed, { scope: 'admin', redirectUri: TRUSTED_URI });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  });

  it("nor through an integration's token they approve: it acts for them, with their grant's end", async () => {
    const integration = await client(['admin']);
    const tokens = await codeTokens(sandbox(), integration, {
      scope: 'admin',
      redirectUri: TRUSTED_URI,
      user: JIT_ADMIN,
    });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    const delegated = { token: tokens.body.access_token as string, tenant: admin().tenant };
    // Session 17 (attack17 A4): no client is made through an integration's token at all, a
    // just-in-time approver's or not: it would outlive the integration.
    expect(refusal(await create(delegated, ['admin']))).toEqual([
      403,
      'user_required',
      `creating OAuth clients is for users themselves, not an OAuth client acting for one (this token is ${integration.client_id}'s): ` +
        'an OAuth client and its secret would outlive the client; ask the user to do it with their own login',
    ]);
  });

  it('still lets them take reach away and rename; creating or re-pointing a client reaching nothing takes oauth_client.manage for good', async () => {
    const jit = as(JIT_ADMIN);
    const armed = await client(['read:reconciliations', 'admin']);
    const narrowed = await patch(jit, armed.client_id, {
      scopes: ['read:reconciliations'],
      name: 'BI (narrowed)',
    });
    expect(narrowed.status, narrowed.text).toBe(200);
    const twoUris = await client(['admin']);
    expect(
      (await patch(admin(), twoUris.client_id, { redirect_uris: [TRUSTED_URI, HOLDER_URI] })).status,
    ).toBe(200);
    expect((await patch(jit, twoUris.client_id, { redirect_uris: [TRUSTED_URI] })).status).toBe(200);
    const nothing = await client(['read:tenants']);
    // conform16 #5: its new secret is still a standing credential, and oauth_client.manage is held
    // just in time (the one rule of API keys and webhook secrets: src/api/holds.ts standingRefusal).
    expect(refusal(await rotate(jit, nothing.client_id))).toEqual([
      403,
      'insufficient_permission',
      "an OAuth client's secret is a standing credential, like an API key: rotating an OAuth client's secret (it hands you the new one) " +
        `takes oauth_client.manage held without an end date, and you hold it only until ${until}; have someone who holds it without an end date do it`,
    ]);
    // Review 16d D3: creating one hands out its secret just the same (a twin of the client whose
    // rotation is refused, with the holder's redirect URI), and re-pointing one sends its codes
    // where the holder chose after the grant ends: the same standing rule, whatever the scopes reach.
    const clients = sandbox().state.oauth.clients.size;
    expect(refusal(await create(jit, ['read:tenants']))).toEqual([
      403,
      'insufficient_permission',
      "an OAuth client's secret is a standing credential, like an API key: creating an OAuth client (it hands you its secret) " +
        `takes oauth_client.manage held without an end date, and you hold it only until ${until}; have someone who holds it without an end date do it`,
    ]);
    expect(sandbox().state.oauth.clients.size).toBe(clients);
    expect(refusal(await patch(jit, nothing.client_id, { redirect_uris: [HOLDER_URI] }))).toEqual([
      403,
      'insufficient_permission',
      "an OAuth client's secret is a standing credential, like an API key: adding or changing an OAuth client's redirect URIs " +
        '(its codes go where you chose, to be redeemed with its secret, after your grant ends) ' +
        `takes oauth_client.manage held without an end date, and you hold it only until ${until}; have someone who holds it without an end date do it`,
    ]);
    expect(stored(nothing.client_id).redirect_uris).toEqual([TRUSTED_URI]);
  });

  it('judges each permission by its own end: what is held permanently arms, what ends names only itself', async () => {
    const until = inHours(3);
    await grant(VIEWER_AND_JIT_ADMIN, 'tenant_viewer');
    await grant(VIEWER_AND_JIT_ADMIN, (await customRole('oauth-standing', ['oauth_client.manage'])).id);
    await grant(VIEWER_AND_JIT_ADMIN, 'tenant_admin', until);
    const caller = as(VIEWER_AND_JIT_ADMIN);
    // reconciliation.read and exception.read are the viewer's, and oauth_client.manage, without an end date.
    const reads = await client(['read:reconciliations', 'read:exceptions']);
    expect((await rotate(caller, reads.client_id)).status).toBe(200);
    const armed = await client(['admin']);
    // Of admin's reach, only what the just-in-time grant alone gives is named (not the viewer's reads).
    expect(refusal(await rotate(caller, armed.client_id))).toEqual([
      403,
      'insufficient_permission',
      `rotating an OAuth client's secret hands out what its scopes reach, which outlasts a just-in-time grant, so it takes the permissions they cover held without an end date; you hold those of admin (every permission of the tenant; 22 of them: account.write, ai_copilot.use, ai_copilot.use.fx, api_key.manage, audit_trail.read and 17 more) only until ${until}; have someone who holds them without an end date do it`,
    ]);
  });

  it('a read scope names its one permission: a manager reading exceptions just in time', async () => {
    const until = inHours(1);
    await grant(JIT_READER, (await customRole('oauth-manager', ['oauth_client.manage'])).id);
    await grant(JIT_READER, (await customRole('exception-look', ['exception.read'])).id, until);
    expect(refusal(await create(as(JIT_READER), ['read:tenants', 'read:exceptions']))).toEqual([
      403,
      'insufficient_permission',
      `creating an OAuth client hands out what its scopes reach, which outlasts a just-in-time grant, so it takes the permissions they cover held without an end date; you hold those of read:exceptions (exception.read) only until ${until}; have someone who holds it without an end date do it`,
    ]);
  });
});
