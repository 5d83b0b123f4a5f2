/**
 * The sandbox's device authorization grant (RFC 8628) and a consent page that scales to
 * thousands of users, over HTTP as any client would use them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_CODE_GRANT } from '../../src/api/constants.js';
import { decodeJwtClaims } from '../../src/auth/jwt.js';
import { authorizeUrl, consent, createClient, pkce, TREASURY } from '../helpers/oauth.js';
import { advanceClock, call, useSandbox } from '../helpers/sandbox.js';
import { admin } from '../helpers/webhooks.js';

const sandbox = useSandbox({ users: 500 });

async function form(path: string, params: Record<string, string>) {
  const response = await fetch(`${sandbox().url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a page
  }
  return { status: response.status, body, text, headers: response.headers };
}

const start = (params: Record<string, string> = {}) =>
  form('/v1/oauth/device_authorization', { client_id: 'svc-cli', ...params });
const poll = (deviceCode: string) =>
  form('/v1/oauth/token', { client_id: 'svc-cli', grant_type: DEVICE_CODE_GRANT, device_code: deviceCode });
const advance = (seconds: number) => advanceClock(sandbox(), seconds);

/** The consent page's ticket, and the page. */
async function consentPageFor(url: string): Promise<{ ticket: string; html: string; status: number }> {
  const response = await fetch(url);
  const html = await response.text();
  return { ticket: /name="ticket" value="([^"]+)"/.exec(html)?.[1] ?? '', html, status: response.status };
}

describe('device authorization (RFC 8628)', () => {
  it('is announced in the metadata', async () => {
    const metadata = (await call(sandbox(), 'GET', '/.well-known/oauth-authorization-server')).body;
    expect(metadata.device_authorization_endpoint).toBe(`${sandbox().url}/v1/oauth/device_authorization`);
    expect(metadata.grant_types_supported).toContain(DEVICE_CODE_GRANT);
  });

  it('pending, slow_down, approved on the verification page, tokens once', async () => {
    const started = await start();
    expect(started.status).toBe(200);
    expect(started.headers.get('cache-control')).toBe('no-store');
    const codes = started.body;
    expect(codes).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${sandbox().url}/oauth/device`,
      verification_uri_complete: `${sandbox().url}/oauth/device?user_code=${codes.user_code}`,
      expires_in: 600,
      interval: 2,
    });
    expect((await poll(codes.device_code)).body.error).toBe('authorization_pending');
    // Polled again at once: slow down, and wait 5 s more from now on.
    expect((await poll(codes.device_code)).body).toEqual({
      error: 'slow_down',
      error_description: 'poll at most every 7 s',
    });
    await advance(7);
    expect((await poll(codes.device_code)).body.error).toBe('authorization_pending');

    // The user types the code (any case, without the dash) and approves as an analyst, by email.
    const typed = codes.user_code.replace('-', '').toLowerCase();
    const page = await consentPageFor(`${sandbox().url}/oauth/device?user_code=${typed}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(
      `Approving signs in the device that shows the code <code>${codes.user_code}</code>`,
    );
    const done = await form('/oauth/device', {
      ticket: page.ticket,
      user_id: 'Analyst@Acme.example',
      decision: 'approve',
    });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Device connected');
    await advance(7);
    const tokens = await poll(codes.device_code);
    expect(tokens.status).toBe(200);
    expect(decodeJwtClaims(tokens.body.access_token)).toMatchObject({
      sub: 'usr_analyst',
      client_id: 'svc-cli',
    });
    expect(tokens.body.refresh_token).toMatch(/^svc_rt_/);
    await advance(7);
    expect((await poll(codes.device_code)).body.error).toBe('invalid_grant');
    // The code was answered: the page does not offer it again.
    expect((await consentPageFor(codes.verification_uri_complete)).status).toBe(400);
  });

  it('access_denied when the user denies; expired_token after ten minutes', async () => {
    const denied = (await start()).body;
    const page = await consentPageFor(denied.verification_uri_complete);
    const answer = await form('/oauth/device', { ticket: page.ticket, decision: 'deny' });
    expect(answer.text).toContain('Request denied');
    expect((await poll(denied.device_code)).body.error).toBe('access_denied');

    const late = (await start()).body;
    await advance(601);
    expect((await poll(late.device_code)).body.error).toBe('expired_token');
    expect((await consentPageFor(late.verification_uri_complete)).status).toBe(400);
  });

  it.each([
    [{ scope: 'read:tenants admin' }, 200, undefined],
    [{ scope: 'write:everything' }, 400, 'invalid_scope'],
    [{ client_id: 'nope' }, 401, 'invalid_client'],
  ])('%j answers %i %s', async (params, status, error) => {
    const r = await start(params);
    expect(r.status).toBe(status);
    if (error) expect(r.body.error).toBe(error);
  });

  it("a tenant's client, registered for the authorization code grant only, may not use the device grant (F2)", async () => {
    const client = await createClient(sandbox(), { scopes: ['read:reconciliations', 'admin'] });
    const secret = { client_id: client.client_id, client_secret: client.client_secret };
    const refused = await start({ ...secret, scope: 'admin' });
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 400,
      body: {
        error: 'unauthorized_client',
        error_description: `this client is not registered for the device authorization grant (${DEVICE_CODE_GRANT}): use the authorization code grant it is registered for`,
      },
    });
    // Nor may it redeem a device code (svc-cli's, approved): its redirect URIs and PKCE stay in force.
    const codes = (await start()).body;
    const page = await consentPageFor(codes.verification_uri_complete);
    await form('/oauth/device', { ticket: page.ticket, user_id: 'usr_admin', decision: 'approve' });
    await advance(7);
    const redeemed = await form('/v1/oauth/token', {
      ...secret,
      grant_type: DEVICE_CODE_GRANT,
      device_code: codes.device_code,
    });
    expect(redeemed.body).toEqual({
      error: 'unauthorized_client',
      error_description: `this client may not use the ${DEVICE_CODE_GRANT} grant`,
    });
    // Nor register it: the reference's grant types only.
    const registered = await call(sandbox(), 'POST', '/v1/oauth/clients', {
      token: sandbox().adminToken,
      tenant: TREASURY,
      body: {
        name: 'dev',
        redirect_uris: ['https://d.example/cb'],
        grant_types: [DEVICE_CODE_GRANT],
        idempotency_key: 'dev-grant',
      },
    });
    expect(registered.status).toBe(400);
    // svc-cli's code is still good for svc-cli.
    expect((await poll(codes.device_code)).body.token_type).toBe('Bearer');
  });

  it('the verification page without a code asks for it; a wrong code says so', async () => {
    const blank = await consentPageFor(`${sandbox().url}/oauth/device`);
    expect(blank.html).toContain('name="user_code"');
    const wrong = await consentPageFor(`${sandbox().url}/oauth/device?user_code=BBBB-BBBB`);
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('That code is not one waiting for approval');
  });

  it('stops looking codes up for a minute after 10 wrong ones in a minute (RFC 8628 §5.1), even a right one', async () => {
    await advance(61); // the minute of the wrong code above is over
    const { user_code } = (await start()).body;
    for (let i = 0; i < 10; i++) {
      expect(
        (await consentPageFor(`${sandbox().url}/oauth/device?user_code=BBBB-BBB${'CDFGHJKLMN'[i]}`)).status,
      ).toBe(400);
    }
    // The sandbox clock runs in real time too: the minute is a little shorter by the time we ask.
    const locked = await fetch(`${sandbox().url}/oauth/device?user_code=${user_code}`);
    expect(locked.status).toBe(429);
    const wait = Number(locked.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(50);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await locked.text()).toContain(
      `Too many wrong codes were typed in the last minute. Try again in ${wait} seconds.`,
    );
    await advance(30);
    const later = Number(
      (await fetch(`${sandbox().url}/oauth/device?user_code=${user_code}`)).headers.get('retry-after'),
    );
    expect(later).toBeGreaterThanOrEqual(20);
    expect(later).toBeLessThanOrEqual(30);
    await advance(31);
    const page = await consentPageFor(`${sandbox().url}/oauth/device?user_code=${user_code}`);
    expect(page.status).toBe(200);
    expect(page.ticket).not.toBe('');
  });
});

describe('the consent page with 500 more users who hold a role', () => {
  beforeAll(async () => {
    const users = Array.from({ length: 500 }, (_, i) => `usr_bulk_${String(i + 1).padStart(6, '0')}`);
    for (let i = 0; i < users.length; i += 50) {
      await Promise.all(
        users.slice(i, i + 50).map(async (user) => {
          const r = await admin(sandbox(), 'POST', `/v1/users/${user}/roles`, {
            role_id: 'tenant_viewer',
            justification: 'consent page at scale',
          });
          if (r.status !== 201) throw new Error(`grant ${user}: ${r.status} ${r.text}`);
        }),
      );
    }
  });

  const url = () =>
    authorizeUrl(sandbox(), {
      response_type: 'code',
      client_id: 'svc-cli',
      redirect_uri: 'http://127.0.0.1:9000/callback',
      state: 'st',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });

  it('has no radio buttons: one field and at most 20 suggestions, whatever the number of users', async () => {
    const { html } = await consentPageFor(url());
    expect(html.match(/type="radio"/g)).toBeNull();
    expect(html.match(/<option /g)).toHaveLength(20);
    expect(html).toContain('510 users can sign in here; type a user id or email (20 suggested).');
    expect(html.length).toBeLessThan(10_000);
  });

  it('finds a user by id or email on the server; anything else brings the page back with matches', async () => {
    expect(
      (await consent(url(), { user: 'usr_bulk_000250' })).location?.searchParams.get('code'),
    ).toBeTruthy();
    const page = await consentPageFor(url());
    const again = await form('/oauth/authorize', {
      ticket: page.ticket,
      user_id: 'bulk_00049',
      decision: 'approve',
    });
    expect(again.status).toBe(200);
    expect(again.text).toContain(
      '&#34;bulk_00049&#34; is not the id or email of a user who can sign in here; the suggestions match it.',
    );
    expect(again.text.match(/<option value="usr_bulk_00049\d"/g)).toHaveLength(10);
    const ticket = /name="ticket" value="([^"]+)"/.exec(again.text)![1]!;
    const approved = await form('/oauth/authorize', {
      ticket,
      user_id: 'usr_bulk_000491',
      decision: 'approve',
    });
    expect(approved.status).toBe(303);
    expect(new URL(approved.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  });
});
