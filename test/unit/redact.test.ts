import { describe, expect, it } from 'vitest';
import {
  MASK,
  redactBody,
  redactHeader,
  redactText,
  redactUrl,
  redactValue,
  SecretRegistry,
  scrubSecrets,
} from '../../src/http/redact.js';

describe('redaction of traces', () => {
  it.each([
    ['authorization', 'Bearer abc.def.ghi', `Bearer ${MASK}`],
    ['Authorization', 'Basic dXNlcjpwYXNz', `Basic ${MASK}`],
    ['cookie', 'session=1', MASK],
    ['x-svc-signature', 't=1,v1=ab', MASK],
    ['x-tenant-id', 'abc', 'abc'],
  ])('header %s', (name, value, expected) => {
    expect(redactHeader(name, value)).toBe(expected);
  });

  it('masks secret-looking JSON fields at any depth but keeps error codes and idempotency keys', () => {
    const body = JSON.stringify({
      client_secret: 's3cr3t',
      nested: { access_token: 'a', refresh_token: 'r', list: [{ password: 'p' }] },
      idempotency_key: 'k',
      error: { code: 'invalid_grant' },
      token_type: 'Bearer',
    });
    expect(JSON.parse(redactBody(body, 'application/json'))).toEqual({
      client_secret: MASK,
      nested: { access_token: MASK, refresh_token: MASK, list: [{ password: MASK }] },
      idempotency_key: 'k',
      error: { code: 'invalid_grant' },
      token_type: 'Bearer',
    });
  });

  it('masks form parameters, including the authorization code and verifier', () => {
    const form = 'grant_type=authorization_code&code=abc&code_verifier=v&client_secret=s&client_id=c';
    expect(redactBody(form, 'application/x-www-form-urlencoded')).toBe(
      `grant_type=authorization_code&code=${encodeURIComponent(MASK)}&code_verifier=${encodeURIComponent(MASK)}&client_secret=${encodeURIComponent(MASK)}&client_id=c`,
    );
  });

  it('masks query parameters and URL credentials', () => {
    const url = new URL('https://u:p@example.com/cb?code=abc&state=xyz&page=2');
    const text = redactUrl(url);
    expect(text).not.toContain('abc');
    expect(text).not.toContain('xyz');
    expect(text).not.toContain(':p@');
    expect(text).toContain('page=2');
  });

  it('scrubs registered secret values wherever they appear', () => {
    expect(scrubSecrets('token is sk_live_canary123 ok', ['sk_live_canary123'])).toBe(`token is ${MASK} ok`);
  });
});

describe('redaction by name, shape and value', () => {
  it.each([
    [{ key: 'svc_sk_x' }, { key: MASK }],
    [
      { api_key: 'a', private_key: 'b', idempotency_key: 'k' },
      { api_key: MASK, private_key: MASK, idempotency_key: 'k' },
    ],
    [
      { code: 'auth-code-value', state: 's' },
      { code: MASK, state: 's' },
    ],
    [
      { device_code: 'd', user_code: 'u' },
      { device_code: MASK, user_code: MASK },
    ],
    [{ error: { code: 'invalid_grant', message: 'm' } }, { error: { code: 'invalid_grant', message: 'm' } }],
    [
      { code: 'not_found', message: 'gone' },
      { code: 'not_found', message: 'gone' },
    ],
    [
      { error: 'invalid_grant', code: 'x' },
      { error: 'invalid_grant', code: 'x' },
    ],
    [
      { secret: 'whsec_1', previous_secret_expires_at: '2026-01-01T00:00:00Z', secret_rotated_at: null },
      { secret: MASK, previous_secret_expires_at: '2026-01-01T00:00:00Z', secret_rotated_at: null },
    ],
    [
      {
        last_error_code: '5xx_server_error',
        status_code: 500,
        token_lifetime_seconds: 60,
        token_type: 'Bearer',
      },
      {
        last_error_code: '5xx_server_error',
        status_code: 500,
        token_lifetime_seconds: 60,
        token_type: 'Bearer',
      },
    ],
  ])('%j → %j', (input, expected) => {
    expect(redactValue(input)).toEqual(expected);
  });

  it.each([
    ['got Bearer abcdefghijklmnop123 back', `got Bearer ${MASK} back`],
    ['authorization: bearer abcdefghijklmnop123', `authorization: bearer ${MASK}`],
    ['a bearer credential is refused', 'a bearer credential is refused'],
    ['key svc_sk_0123456789abcdefghij1234 here', `key svc_sk_${MASK} here`],
    ['prefix svc_sk_abc is fine', 'prefix svc_sk_abc is fine'],
    ['whsec_0123456789abcdefABCDEF=', `whsec_${MASK}`],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig-nature_1 end', `jwt ${MASK} end`],
    [
      'idempotency svc_8d0c6a7e-1b2c-4d5e-8f90-123456789abc',
      'idempotency svc_8d0c6a7e-1b2c-4d5e-8f90-123456789abc',
    ],
  ])('redactText(%j)', (text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  it('scrubs overlapping registered secrets in one pass, never completing another', () => {
    expect(scrubSecrets('xxabcdefghijyy', ['abcdefgh', 'efghij00', 'defghijy'])).toBe(`xx${MASK}y`);
    expect(scrubSecrets('short pw', ['pw'])).toBe('short pw');
  });

  it('the registry learns secret-named values of received documents', () => {
    const registry = new SecretRegistry();
    registry.learn({
      id: 'key_1',
      key: 'svc_pk_learned-value',
      items: [{ client_secret: 'nested-secret-1' }],
    });
    registry.learn({ error: { code: 'some_error_code', message: 'm' } });
    expect(registry.values().sort()).toEqual(['nested-secret-1', 'svc_pk_learned-value']);
    expect(registry.redact('a nested-secret-1 b')).toBe(`a ${MASK} b`);
  });
});
