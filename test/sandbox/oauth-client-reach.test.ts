import { describe, expect, it } from 'vitest';
import {
  authorizationCode,
  authorizeUrl,
  clientChanges,
  codeTokens,
  consent,
  pkce,
  tokenRequest,
} from '../helpers/oauth.js';
import { call, useGrantRules } from '../helpers/sandbox.js';

// Session 13 (escalate13 F6): a user holding only oauth_client.manage widened a trusted client to
// `admin`, added their own redirect URI and rotated its secret; one admin approval of the
// unchanged-looking consent page later they held a token acting with the admin's full authority
// and granted themself tenant_admin under the admin's name. Putting a scope into a client hands out
// what it reaches, and taking its secret or pointing its codes elsewhere takes it: each needs the
// permissions the scopes cover; and the consent page says a recent change of scopes or redirect URIs.
const { sandbox, key, admin, as, customRole, refusal } = useGrantRules('oauth-reach');

const HOLDER_URI = 'http://127.0.0.1:34811/cb';
const TRUSTED_URI = 'https://bi.acme.example/cb';

async function grant(userId: string, roleId: string) {
  const r = await call(sandbox(), 'POST', `/v1/users/${userId}/roles`, {
    ...admin(),
    body: { role_id: roleId, idempotency_key: key() },
  });
  expect(r.status, r.text).toBe(201);
}

let managers: Promise<{ id: string }> | undefined;
/** usr_viewer (tenant_viewer: account, reconciliation and exception reads) with oauth_client.manage too. */
async function viewerManager() {
  managers ??= customRole('oauthmgr', ['oauth_client.manage']).then(async (role) => {
    await grant('usr_viewer', role.id);
    return role;
  });
  await managers;
  return as('usr_viewer');
}

/** usr_compliance (tenant_compliance: no record reads at all) with oauth_client.manage too. */
let complianceManagers: Promise<unknown> | undefined;
async function complianceManager() {
  await viewerManager();
  complianceManagers ??= (async () => grant('usr_compliance', (await managers!).id))();
  await complianceManagers;
  return as('usr_compliance');
}

async function trustedClient(scopes = ['read:reconciliations']) {
  const r = await call(sandbox(), 'POST', '/v1/oauth/clients', {
    ...admin(),
    body: { name: 'Acme BI (trusted)', redirect_uris: [TRUSTED_URI], scopes, idempotency_key: key() },
  });
  expect(r.status, r.text).toBe(201);
  return r.body as { client_id: string; client_secret: string };
}

const { patch, rotate, stored } = clientChanges(sandbox, key);

const VIEWER_LACKS_FOR_ADMIN =
  'admin (every permission of the tenant; you lack 22 of them: account.write, ai_copilot.use, ai_copilot.use.fx, api_key.manage, audit_trail.read and 17 more)';

describe('escalate13 F6: oauth_client.manage alone cannot arm a trusted client', () => {
  it('the viewer with oauth_client.manage can neither widen it to admin, re-point it, nor take its secret; no admin token reaches them', async () => {
    const viewer = await viewerManager();
    const client = await trustedClient();
    const before = stored(client.client_id);

    const widen = await patch(viewer, client.client_id, {
      scopes: ['read:reconciliations', 'admin'],
      redirect_uris: [TRUSTED_URI, HOLDER_URI],
    });
    expect(refusal(widen)).toEqual([
      403,
      'insufficient_permission',
      `putting scopes into an OAuth client hands out what they reach, so it takes the permissions they cover; you lack those of ${VIEWER_LACKS_FOR_ADMIN}; have someone who holds them do it`,
    ]);
    // Each part alone: admin is a scope added; the holder's URI is theirs to add only while the
    // client reaches no more than they hold (read:reconciliations: they do).
    expect(
      (await patch(viewer, client.client_id, { scopes: ['read:reconciliations', 'admin'] })).status,
    ).toBe(403);
    expect(stored(client.client_id)).toEqual(before);

    // The admin's approval of a login to the holder's URI with scope admin gets them nothing.
    const outcome = await consent(
      authorizeUrl(sandbox(), {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: HOLDER_URI,
        scope: 'admin',
        state: 's1',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    expect(outcome.status).toBe(400);
    expect(outcome.location).toBeUndefined();
  });
});

describe('putting a scope into a client takes the permissions it reaches', () => {
  it('creating: admin needs every permission; read:exceptions needs exception.read; read:tenants reaches none', async () => {
    const viewer = await viewerManager();
    const compliance = await complianceManager();
    const create = (caller: { token: string; tenant: string }, scopes: string[]) =>
      call(sandbox(), 'POST', '/v1/oauth/clients', {
        ...caller,
        body: { name: 'Holder app', redirect_uris: [HOLDER_URI], scopes, idempotency_key: key() },
      });
    const count = () => sandbox().state.oauth.clients.size;
    const before = count();
    expect(refusal(await create(viewer, ['read:reconciliations', 'admin']))).toEqual([
      403,
      'insufficient_permission',
      `creating an OAuth client hands out what its scopes reach, so it takes the permissions they cover; you lack those of ${VIEWER_LACKS_FOR_ADMIN}; have someone who holds them do it`,
    ]);
    expect(refusal(await create(compliance, ['read:exceptions', 'read:tenants']))).toEqual([
      403,
      'insufficient_permission',
      'creating an OAuth client hands out what its scopes reach, so it takes the permissions they cover; you lack those of read:exceptions (exception.read); have someone who holds it do it',
    ]);
    expect(count()).toBe(before);
    expect((await create(compliance, ['read:tenants'])).status).toBe(201);
    expect((await create(viewer, ['read:exceptions', 'read:reconciliations'])).status).toBe(201);
  });

  it('updating: a scope added is judged, a scope kept or removed is not', async () => {
    const compliance = await complianceManager();
    const client = await trustedClient(['read:tenants', 'read:reconciliations']);
    expect(
      refusal(await patch(compliance, client.client_id, { scopes: ['read:tenants', 'read:exceptions'] })),
    ).toEqual([
      403,
      'insufficient_permission',
      'putting scopes into an OAuth client hands out what they reach, so it takes the permissions they cover; you lack those of read:exceptions (exception.read); have someone who holds it do it',
    ]);
    expect(stored(client.client_id).scopes).toEqual(['read:tenants', 'read:reconciliations']);
    // Taking one out hands nothing out; nor does renaming a client whose reach the caller lacks.
    const narrowed = await patch(compliance, client.client_id, { scopes: ['read:tenants'], name: 'BI' });
    expect(narrowed.status, narrowed.text).toBe(200);
  });
});

describe("taking a client's secret or pointing its codes elsewhere takes what its scopes reach", () => {
  it('adding or changing a redirect URI of a client reaching beyond the caller is refused; removing one is not', async () => {
    const compliance = await complianceManager();
    const client = await trustedClient(['read:reconciliations']);
    const said =
      "adding or changing an OAuth client's redirect URIs hands out what its scopes reach, so it takes the permissions they cover; you lack those of read:reconciliations (reconciliation.read); have someone who holds it do it";
    expect(
      refusal(await patch(compliance, client.client_id, { redirect_uris: [TRUSTED_URI, HOLDER_URI] })),
    ).toEqual([403, 'insufficient_permission', said]);
    expect(refusal(await patch(compliance, client.client_id, { redirect_uris: [HOLDER_URI] }))).toEqual([
      403,
      'insufficient_permission',
      said,
    ]);
    expect(stored(client.client_id).redirect_uris).toEqual([TRUSTED_URI]);
    // The viewer holds reconciliation.read: pointing this client at themself hands out nothing they lack.
    const viewer = await viewerManager();
    expect((await patch(viewer, client.client_id, { redirect_uris: [TRUSTED_URI, HOLDER_URI] })).status).toBe(
      200,
    );
    // Removing a URI points codes nowhere new; putting it back does.
    expect((await patch(compliance, client.client_id, { redirect_uris: [TRUSTED_URI] })).status).toBe(200);
    expect(
      (await patch(compliance, client.client_id, { redirect_uris: [TRUSTED_URI, HOLDER_URI] })).status,
    ).toBe(403);
    expect(stored(client.client_id).redirect_uris).toEqual([TRUSTED_URI]);
  });

  it('rotating the secret of a client reaching beyond the caller is refused, and the old secret still works', async () => {
    const viewer = await viewerManager();
    const client = await trustedClient(['read:reconciliations', 'admin']);
    expect(refusal(await rotate(viewer, client.client_id))).toEqual([
      403,
      'insufficient_permission',
      `rotating an OAuth client's secret hands out what its scopes reach, so it takes the permissions they cover; you lack those of ${VIEWER_LACKS_FOR_ADMIN}; have someone who holds them do it`,
    ]);
    expect(stored(client.client_id).secret_rotated_at).toBeNull();
    const tokens = await codeTokens(sandbox(), client, {
      scope: 'read:reconciliations',
      redirectUri: TRUSTED_URI,
    });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    // A client whose reach the viewer holds: theirs to rotate.
    const readOnly = await trustedClient(['read:reconciliations', 'read:exceptions']);
    expect((await rotate(viewer, readOnly.client_id)).status).toBe(200);
  });
});

describe('an admin still can do all of it', () => {
  it('widens to admin, adds a redirect URI, rotates the secret, and the login works with the new secret', async () => {
    const client = await trustedClient();
    const r = await patch(admin(), client.client_id, {
      scopes: ['read:reconciliations', 'admin'],
      redirect_uris: [TRUSTED_URI, HOLDER_URI],
    });
    expect(r.status, r.text).toBe(200);
    const rotated = await rotate(admin(), client.client_id);
    expect(rotated.status, rotated.text).toBe(200);
    const { code, redirectUri, verifier } = await authorizationCode(sandbox(), client, {
      redirectUri: HOLDER_URI,
      scope: 'admin',
    });
    const tokens = await tokenRequest(sandbox(), {
      grant_type: 'authorization_code',
      client_id: client.client_id,
      client_secret: rotated.body.client_secret,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body.scope).toBe('admin');
  });
});

describe('the consent page says a recent change of scopes or redirect URIs, and by whom', () => {
  const page = (clientId: string, redirectUri: string) =>
    fetch(
      authorizeUrl(sandbox(), {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'read:reconciliations',
        state: 's',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    ).then((r) => r.text());
  const note = (html: string) => /<p id="changed">([^<]*(?:<code>[^<]*<\/code>[^<]*)*)<\/p>/.exec(html)?.[1];

  it('names the fields, when and who for a change within 7 days; nothing for a client unchanged or changed longer ago', async () => {
    const viewer = await viewerManager();
    const client = await trustedClient();
    expect(note(await page(client.client_id, TRUSTED_URI))).toBeUndefined();
    // A rename is no change of what it reaches or where its codes go.
    expect((await patch(admin(), client.client_id, { name: 'Acme BI' })).status).toBe(200);
    expect(note(await page(client.client_id, TRUSTED_URI))).toBeUndefined();
    expect((await patch(viewer, client.client_id, { redirect_uris: [TRUSTED_URI, HOLDER_URI] })).status).toBe(
      200,
    );
    const at = (sandbox().state.oauth.clients.get(client.client_id) as any).registrationChange?.at;
    expect(note(await page(client.client_id, HOLDER_URI))).toBe(
      `Recently changed: its redirect URIs were changed at ${at} by Viewer User (<code>usr_viewer</code>). Approve only if you expected this.`,
    );
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 8 * 86_400 } });
    expect(note(await page(client.client_id, HOLDER_URI))).toBeUndefined();
  });
});
