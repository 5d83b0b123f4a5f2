// What svc says of an API key it is about to forget or has just made (src/auth/key-state.ts): live,
// stopped (refused although not revoked, with why), or refused for good. logout, profiles rm, a
// replacing login and `tenants api-keys create` print these states; each is decided here from the
// platform's answer to GET /v1/me, so each input shape is pinned exactly.
import { describe, expect, it } from 'vitest';
import { OriginMismatchError, staticCredentials } from '../../src/auth/credentials.js';
import { askAboutKey, keyRefusal } from '../../src/auth/key-state.js';
import { AuthError, InterruptedError, SvcError } from '../../src/errors.js';
import { ApiError } from '../../src/http/errors.js';
import type { Platform } from '../../src/platform/index.js';

const stoppedDetail = { state: 'stopped', key_id: 'key_1', tenant_id: 'ten_1' };
const refusedWith = (details: unknown, status = 401) =>
  new ApiError({ status, message: 'the issuer no longer holds admin', details });

describe('keyRefusal', () => {
  it('reads a stopped key from the 401 details: its id, tenant id and the message why', () => {
    expect(keyRefusal(refusedWith([stoppedDetail]))).toEqual({
      state: 'stopped',
      id: 'key_1',
      tenant: 'ten_1',
      reason: 'the issuer no longer holds admin',
    });
  });

  it('names the tenant by its slug when the details give one, by its id when the slug is no string', () => {
    expect(keyRefusal(refusedWith([{ ...stoppedDetail, tenant_slug: 'acme' }]))).toMatchObject({
      state: 'stopped',
      tenant: 'acme',
    });
    expect(keyRefusal(refusedWith([{ ...stoppedDetail, tenant_slug: 7 }]))).toMatchObject({
      state: 'stopped',
      tenant: 'ten_1',
    });
  });

  it('finds the stopped entry among other details', () => {
    expect(keyRefusal(refusedWith([null, 'stopped', { field: 'x' }, stoppedDetail]))).toMatchObject({
      state: 'stopped',
      id: 'key_1',
    });
  });

  // Each part of a stopped entry is needed: without one, the 401 is a refusal for good.
  it.each([
    ['no details', undefined],
    ['details that are no list', stoppedDetail],
    ['a null entry', [null]],
    ['a string entry', ['stopped']],
    ['another state', [{ ...stoppedDetail, state: 'revoked' }]],
    ['no state', [{ key_id: 'key_1', tenant_id: 'ten_1' }]],
    ['no key id', [{ state: 'stopped', tenant_id: 'ten_1' }]],
    ['a key id that is no string', [{ ...stoppedDetail, key_id: 1 }]],
    ['no tenant id', [{ state: 'stopped', key_id: 'key_1' }]],
    ['a tenant id that is no string', [{ ...stoppedDetail, tenant_id: 1 }]],
  ])('says rejected for a 401 with %s', (_, details) => {
    expect(keyRefusal(refusedWith(details))).toEqual({ state: 'rejected' });
  });

  it('reads the 401 svc wrapped in another error', () => {
    const wrapped = new AuthError('not logged in', { cause: refusedWith([stoppedDetail]) });
    expect(keyRefusal(wrapped)).toMatchObject({ state: 'stopped', id: 'key_1' });
    expect(keyRefusal(new SvcError('failure', 'x', { cause: wrapped }))).toMatchObject({ state: 'stopped' });
  });

  it('says nothing of an answer that is no 401, or of an error that is no SvcError', () => {
    expect(keyRefusal(refusedWith([stoppedDetail], 403))).toBeUndefined();
    expect(keyRefusal(refusedWith(undefined, 500))).toBeUndefined();
    expect(keyRefusal(new SvcError('failure', 'connection refused'))).toBeUndefined();
    expect(keyRefusal(new Error('boom'))).toBeUndefined();
    expect(keyRefusal(undefined)).toBeUndefined();
  });
});

describe('askAboutKey', () => {
  const key = staticCredentials('sk_test', 'test');
  const platformAnswering = (get: (options: unknown) => Promise<unknown>) => {
    const seen: unknown[] = [];
    const platform = {
      me: {
        get: (options: unknown) => {
          seen.push(options);
          return get(options);
        },
      },
    } as unknown as Platform;
    return { platform: async () => platform, seen };
  };

  it('asks once with the key itself, no tenant, no retries, and says live with the first tenant', async () => {
    const { platform, seen } = platformAnswering(async () => ({
      type: 'api_key',
      id: 'key_1',
      tenants: [{ slug: 'acme' }, { slug: 'other' }],
    }));
    await expect(askAboutKey(platform, key)).resolves.toEqual({
      state: 'live',
      id: 'key_1',
      tenant: 'acme',
    });
    expect(seen).toEqual([{ credentials: key, tenant: null, maxRetries: 0, timeoutMs: 5_000 }]);
  });

  it('says live without a tenant when the key has none', async () => {
    const { platform } = platformAnswering(async () => ({ type: 'api_key', id: 'key_1', tenants: [] }));
    await expect(askAboutKey(platform, key)).resolves.toEqual({
      state: 'live',
      id: 'key_1',
      tenant: undefined,
    });
  });

  it('says nothing when the token is no API key (a user session)', async () => {
    const { platform } = platformAnswering(async () => ({
      type: 'user',
      id: 'usr_1',
      tenants: [{ slug: 'acme' }],
    }));
    await expect(askAboutKey(platform, staticCredentials('tok', 'test'))).resolves.toBeUndefined();
  });

  it('says stopped or rejected from a 401, nothing from another failure', async () => {
    const ask = (error: unknown) =>
      askAboutKey(
        platformAnswering(async () => {
          throw error;
        }).platform,
        key,
      );
    await expect(ask(refusedWith([stoppedDetail]))).resolves.toMatchObject({ state: 'stopped', id: 'key_1' });
    await expect(ask(refusedWith(undefined))).resolves.toEqual({ state: 'rejected' });
    await expect(ask(refusedWith(undefined, 503))).resolves.toBeUndefined();
    await expect(ask(new SvcError('failure', 'connection refused'))).resolves.toBeUndefined();
  });

  // attack23 F1: a stored key bound to another origin is not sent; that is no answer about it.
  it('says elsewhere, with both origins, when the key may not go to the server in effect', async () => {
    const { platform } = platformAnswering(async () => {
      throw new OriginMismatchError(
        'http://127.0.0.1:4011',
        'http://127.0.0.1:4015',
        'key',
        'svc -p key login',
      );
    });
    await expect(askAboutKey(platform, key)).resolves.toEqual({
      state: 'elsewhere',
      origin: 'http://127.0.0.1:4011',
      here: 'http://127.0.0.1:4015',
    });
  });

  it('throws Ctrl-C on: the command stops instead of going on without an answer', async () => {
    const interrupted = new InterruptedError();
    const { platform } = platformAnswering(async () => {
      throw interrupted;
    });
    await expect(askAboutKey(platform, key)).rejects.toBe(interrupted);
  });
});
