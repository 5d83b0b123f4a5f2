import { describe, expect, it } from 'vitest';
import { MASK, redactBody, redactHeader, redactUrl, scrubSecrets } from '../../src/http/redact.js';

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
