import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { joinUrl, path } from '../../src/http/path.js';

describe('paths', () => {
  it.each([
    ['usr_1', 'tenant_admin', '/v1/users/usr_1/roles/tenant_admin'],
    ['../admin', 'x', '/v1/users/..%2Fadmin/roles/x'],
    ['a/b?c#d', 'e f', '/v1/users/a%2Fb%3Fc%23d/roles/e%20f'],
  ])('encodes %s and %s as single segments', (user, role, expected) => {
    expect(path`/v1/users/${user}/roles/${role}`).toBe(expected);
  });

  it.each([
    ['', () => path`/v1/users/${''}`, 'USER must be an id, not empty'],
    ['.', () => path`/v1/roles/${'.'}`, 'ROLE must be an id, not "."'],
    ['..', () => path`/v1/webhooks/${'wh_1'}/deliveries/${'..'}`, 'DELIVERY must be an id, not ".."'],
    ['..', () => path`/v1/${'..'}`, 'SURFACE must be an id, not ".."'],
    ['.', () => path`/v1/${'alerts'}/${'.'}`, 'ID must be an id, not "."'],
    [' ', () => path`/v1/tenants/${' '}/api-keys`, 'TENANT must be an id, not empty'],
    [
      'wh_019511…',
      () => path`/v1/webhooks/${'wh_019511…'}`,
      'WEBHOOK "wh_019511…" is an id shortened to fit a table',
    ],
  ])('refuses the segment %j as a usage error naming the argument', (_bad, build, message) => {
    expect(build).toThrow(UsageError);
    expect(build).toThrow(message);
  });

  it.each([
    ['http://127.0.0.1:4010', '/v1/me', 'http://127.0.0.1:4010/v1/me'],
    ['http://127.0.0.1:4010/', '/v1/me', 'http://127.0.0.1:4010/v1/me'],
    ['https://example.com/api/', '/v1/tenants?limit=5', 'https://example.com/api/v1/tenants?limit=5'],
    ['https://example.com/api', 'v1/me', 'https://example.com/api/v1/me'],
  ])('joins %s and %s', (base, p, expected) => {
    expect(joinUrl(base, p).toString()).toBe(expected);
  });
});
