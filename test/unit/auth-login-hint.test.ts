// The way out of a 403 user_required for a profile logged in through a tenant's own OAuth client
// (src/auth/login-hint.ts, clientLoginHint): when it applies, and which of the three ways it gives
// (the client id from SVC_CLIENT_ID, from the profile, or from --client-id alone).
import { describe, expect, it } from 'vitest';
import { clientLoginHint, loginHint, otherCredentialHint } from '../../src/auth/login-hint.js';
import type { StoredCredential } from '../../src/config/store.js';

type Settings = Parameters<typeof clientLoginHint>[0];
const settings = (
  client: string | undefined,
  source: string | undefined,
  profileSource = 'default',
): Settings =>
  ({
    profile: 'default',
    profileSource,
    values: { client_id: client },
    sources: { client_id: source },
  }) as unknown as Settings;
const stored: StoredCredential = {
  type: 'oauth',
  access_token: 'at',
  client_id: 'vendor-app',
  obtained_at: 'x',
};
const hint = (way: string, profile = 'default') =>
  `profile "${profile}" is logged in through the OAuth client vendor-app (\`svc login --client-id\`), which the platform counts as an integration acting for you, not your own login: log in through svc's own client to do this (${way})`;

describe('clientLoginHint', () => {
  it.each([
    ['SVC_CLIENT_ID', settings('vendor-app', 'env'), 'unset SVC_CLIENT_ID, then `svc login`'],
    ['the profile', settings('vendor-app', 'profile'), '`svc config unset client_id`, then `svc login`'],
    ['--client-id alone', settings(undefined, undefined), '`svc login`, without --client-id'],
    ['--client-id, another id configured', settings('svc-cli', 'env'), '`svc login`, without --client-id'],
  ])('says how to log in again when the client id came from %s', (_, s, way) => {
    expect(clientLoginHint(s, {}, stored)).toBe(hint(way));
  });

  it('keeps -p NAME when it was given', () => {
    const s = { ...settings('vendor-app', 'profile', 'flag'), profile: 'f2' } as Settings;
    expect(clientLoginHint(s, {}, stored)).toBe(
      hint('`svc -p f2 config unset client_id`, then `svc -p f2 login`', 'f2'),
    );
  });

  it.each([
    ['SVC_TOKEN overrides the profile', { SVC_TOKEN: 'tok' }, stored],
    ['no credential', {}, undefined],
    ['a token login', {}, { ...stored, type: 'token' as const }],
    [
      'an OAuth login through svc’s own client (no client id stored)',
      {},
      { ...stored, client_id: undefined },
    ],
  ])('gives none when %s', (_, env, credential) => {
    expect(clientLoginHint(settings(undefined, undefined), env, credential)).toBeUndefined();
  });
});

describe('loginHint and otherCredentialHint: SVC_TOKEN or a profile', () => {
  it('a missing or refused credential: log in (keeping -p NAME), unless SVC_TOKEN overrides every login', () => {
    expect(loginHint({ profile: 'default', profileSource: 'default' }, {})).toBe(
      'run `svc login` (or `svc login --with-token`), or set SVC_TOKEN',
    );
    expect(loginHint({ profile: 'f2', profileSource: 'flag' }, {})).toBe(
      'run `svc -p f2 login` (or `svc -p f2 login --with-token`), or set SVC_TOKEN',
    );
    expect(loginHint({ profile: 'default', profileSource: 'default' }, { SVC_TOKEN: 'tok' })).toBe(
      'SVC_TOKEN overrides any stored login: unset it, or set it to a valid token',
    );
  });

  it('a 403 another credential fixes: another profile, or another SVC_TOKEN', () => {
    expect(otherCredentialHint({})).toBe('use a profile whose login holds it (svc -p PROFILE …)');
    expect(otherCredentialHint({ SVC_TOKEN: 'tok' })).toBe(
      'set SVC_TOKEN to a credential that holds it (it overrides every profile), or unset it to use a profile whose login does',
    );
  });
});
