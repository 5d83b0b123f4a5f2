/**
 * Ending a session server-side (src/auth/revocation.ts, RFC 7009): which token is revoked, with
 * what hint and client authentication, and what counts as "the server cannot revoke" rather than
 * a failure — against a scripted local server that records every form.
 */
import { describe, expect, it } from 'vitest';
import { revokeSession } from '../../src/auth/revocation.js';
import type { StoredCredential } from '../../src/config/store.js';
import { testContext } from '../helpers/context.js';
import { answers, useHostileServer } from '../helpers/hostile.js';

const server = useHostileServer();

/** Metadata announcing /revoke (or none: 404), and a scripted answer to the revocation. */
async function authServer(options: { metadata: boolean; revoke: { status: number; body: unknown } }) {
  const forms: Array<{ path: string; form: Record<string, string> }> = [];
  const s = await server();
  const base = s.url;
  s.answer((req, res, received, hit) => {
    const send = (status: number, value: unknown) => answers.json(status, value)(req, res, received, hit);
    if (received.url === '/.well-known/oauth-authorization-server') {
      return options.metadata
        ? send(200, {
            issuer: `${base}/`,
            token_endpoint: `${base}/token`,
            revocation_endpoint: `${base}/revoke`,
          })
        : send(404, { error: { code: 'not_found', message: 'no' } });
    }
    forms.push({ path: received.url, form: Object.fromEntries(new URLSearchParams(received.body)) });
    return send(options.revoke.status, options.revoke.body);
  });
  return { base, forms };
}

const credential = (base: string, extra: Partial<StoredCredential> = {}): StoredCredential => ({
  type: 'oauth',
  access_token: 'acc-0123456789',
  client_id: 'cli',
  token_url: `${base}/token`,
  obtained_at: '2026-01-01T00:00:00Z',
  ...extra,
});

async function api(base: string) {
  return testContext({ env: { SVC_BASE_URL: base, NO_COLOR: '1' } }).ctx.api();
}

describe('revokeSession', () => {
  it('revokes the refresh token when there is one, with the client secret', async () => {
    const { base, forms } = await authServer({ metadata: true, revoke: { status: 200, body: {} } });
    const outcome = await revokeSession(
      await api(base),
      credential(base, { refresh_token: 'ref-0123456789', client_secret: 'sec-0123456789' }),
    );
    expect(outcome).toEqual({ outcome: 'revoked', endpoint: `${base}/revoke` });
    expect(forms).toEqual([
      {
        path: '/revoke',
        form: {
          token: 'ref-0123456789',
          token_type_hint: 'refresh_token',
          client_id: 'cli',
          client_secret: 'sec-0123456789',
        },
      },
    ]);
  });

  it('revokes the access token when there is no refresh token', async () => {
    const { base, forms } = await authServer({ metadata: true, revoke: { status: 200, body: {} } });
    expect(await revokeSession(await api(base), credential(base))).toEqual({
      outcome: 'revoked',
      endpoint: `${base}/revoke`,
    });
    expect(forms[0]!.form).toEqual({
      token: 'acc-0123456789',
      token_type_hint: 'access_token',
      client_id: 'cli',
    });
  });

  it('a server that cannot revoke this kind of token is "unsupported", not a failure', async () => {
    const { base } = await authServer({
      metadata: true,
      revoke: { status: 400, body: { error: 'unsupported_token_type', error_description: 'no' } },
    });
    expect(await revokeSession(await api(base), credential(base))).toEqual({
      outcome: 'unsupported',
      server: base,
    });
  });

  it('another refusal is a failure, never a logout', async () => {
    const { base } = await authServer({
      metadata: true,
      revoke: { status: 400, body: { error: 'invalid_client' } },
    });
    await expect(revokeSession(await api(base), credential(base))).rejects.toThrow();
  });

  it('a 404 from the endpoint the metadata announced is a failure, not "unsupported"', async () => {
    const { base } = await authServer({ metadata: true, revoke: { status: 404, body: { error: 'nope' } } });
    await expect(revokeSession(await api(base), credential(base))).rejects.toMatchObject({ status: 404 });
  });

  it('a refusal that echoes the token and the client secret: both are masked where svc prints the error', async () => {
    const { base } = await authServer({
      metadata: true,
      revoke: {
        status: 400,
        body: { error: 'invalid_request', error_description: 'bad ref-0123456789 for sec-0123456789' },
      },
    });
    const { ctx } = testContext({ env: { SVC_BASE_URL: base, NO_COLOR: '1' } });
    const error = (await revokeSession(
      await ctx.api(),
      credential(base, { refresh_token: 'ref-0123456789', client_secret: 'sec-0123456789' }),
    ).catch((e: unknown) => e)) as Error;
    expect(ctx.secrets.redact(error.message)).toBe('bad [redacted] for [redacted]');
  });

  it('without metadata the guessed path is tried; its 404 means unsupported', async () => {
    const { base, forms } = await authServer({
      metadata: false,
      revoke: { status: 404, body: { error: 'nope' } },
    });
    expect(await revokeSession(await api(base), credential(base))).toEqual({
      outcome: 'unsupported',
      server: base,
    });
    expect(forms.map((f) => f.path)).toEqual(['/v1/oauth/revoke']);
  });

  it.each([
    ['a token given to login --with-token', (base: string) => credential(base, { type: 'token' })],
    [
      'an OAuth credential without a token endpoint',
      (base: string): StoredCredential => {
        const { token_url: _, ...rest } = credential(base);
        return rest;
      },
    ],
  ])('%s has no session to revoke, and nothing is sent', async (_, stored) => {
    const { base, forms } = await authServer({ metadata: true, revoke: { status: 200, body: {} } });
    expect(await revokeSession(await api(base), stored(base))).toEqual({ outcome: 'not_applicable' });
    expect(forms).toEqual([]);
  });
});
