// attack25b M5: a query value was masked by its name only, so a key under `?accesskey=`, `?k=`,
// `?tok=` or any name no list knows went whole into --debug traces, the audit trail and exports.
import { describe, expect, it } from 'vitest';
import { isSecretField, redactParams, redactUrlText } from '../../src/api/secret-names.js';

const KEY = 'Zq8HxkVw3mPq9RtYb7LcNe2WfUa5JdKs'; // random-looking, no svc shape
const HEX = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
// The sandbox's cursor: base64url of {"v":1,"k":…,"i":…,"f":…}, as random-looking as a key.
const CURSOR = Buffer.from(
  JSON.stringify({ v: 1, k: 1764000000000, i: 'usr_admin', f: 'AbCdEfGhIjKl' }),
).toString('base64url');

describe('a query value shaped like a random credential is masked whatever its name', () => {
  it.each([
    ['accesskey', KEY],
    ['k', KEY],
    ['s', KEY],
    ['h', HEX],
    ['q', KEY],
    ['x', `${KEY.slice(0, 10)}%2B${KEY.slice(10)}%3D%3D`], // base64 with + and = padding
    ['foo', CURSOR], // a cursor under a name that does not say it is one
  ])('?%s=…', (name, value) => {
    expect(redactUrlText(`https://hooks.example.com/svc?${name}=${value}&event=created`)).toBe(
      `https://hooks.example.com/svc?${name}=[redacted]&event=created`,
    );
  });

  it('a bare value, and a path parameter', () => {
    expect(redactUrlText(`https://hooks.example.com/svc?${KEY}`)).toBe(
      'https://hooks.example.com/svc?[redacted]',
    );
    expect(redactUrlText(`https://hooks.example.com/a;k2=${KEY}/b`)).toBe(
      'https://hooks.example.com/a;k2=[redacted]/b',
    );
  });

  it('in a form', () => {
    expect(redactParams(new URLSearchParams({ grant: 'x', extra: KEY })).toString()).toBe(
      'grant=x&extra=%5Bredacted%5D',
    );
  });
});

describe('ordinary values are kept', () => {
  it.each([
    ['cursor', CURSOR],
    ['next_cursor', CURSOR],
    ['pageCursor', CURSOR],
    ['after', CURSOR],
    ['user_id', 'usr_0123456789abcdef01234567'],
    ['tenant_id', 'acme-treasury'],
    ['id', '3f2c9a1e-7b4d-4c8e-9a6f-0123456789ab'],
    ['since', '2026-01-15T12:00:00Z'],
    ['event_type', 'exception.created'],
    ['limit', '100'],
    ['name', 'reconciliation-exceptions-2026'],
    ['q', 'ReconciliationExceptions'],
  ])('?%s=%s', (name, value) => {
    const url = `https://api.example.com/v1/x?${name}=${value}`;
    expect(redactUrlText(url)).toBe(url);
  });
});

describe('names', () => {
  it.each(['accesskey', 'authKey', 'privatekey', 'signingkey', 'tok', 'bearer', 'x_bearer'])(
    '%s is a secret field wherever it stands',
    (name) => expect(isSecretField(name)).toBe(true),
  );
  it.each(['k', 'access', 'sign', 'hash', 'ticket'])(
    '?%s= is masked in a query, short as its value is',
    (name) =>
      expect(redactUrlText(`https://h.example/x?${name}=abc123`)).toBe(
        `https://h.example/x?${name}=[redacted]`,
      ),
  );
  it.each(['access_level', 'ticket_id', 'hash', 'k'])(
    'the JSON field %s is not a secret by its name',
    (name) => expect(isSecretField(name)).toBe(false),
  );
});
