// attack25b M5: a query value was masked by its name only, so a key under `?accesskey=`, `?k=`,
// `?tok=` or any name no list knows went whole into --debug traces, the audit trail and exports.
import { describe, expect, it } from 'vitest';
import { isSecretField, redactParams, redactUrlText } from '../../src/api/secret-names.js';

const KEY = 'Zq8HxkVw3mPq9RtYb7LcNe2WfUa5JdKs'; // random-looking, no svc shape
// 48 hex digits (hex of 32 or more digits is masked at any length, an id's too).
const HEX = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c';
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
    // Hex of an id's or a digest's length too: a 128- or 256-bit key is written so as often.
    ['tenant', '8ab23c1d9e0f41a2b3c4d5e6f7a8b9c0'], // 32 hex (a UUID without dashes, or a key)
    ['commit', '3f2c9a1e7b4d4c8e9a6f0123456789abcdef0123'], // 40 hex (a commit SHA, or a key)
    ['digest', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'], // 64 hex
    ['q', KEY],
    ['x', `${KEY.slice(0, 10)}%2B${KEY.slice(10)}%3D%3D`], // base64 with + and = padding
    ['foo', CURSOR], // a cursor under a name that does not say it is one
    // review25c M1: what the narrower rule still masks.
    ['x', `${KEY.slice(0, 12)}+${KEY.slice(12)}`], // base64's + (no / or =): not words joined by spaces
    ['x', `Zq8Hx-kVw3mPq9_RtYb7LcNe2Wf`], // base64url with its - and _
    ['x', `sk_live_${KEY}`], // a prefix whose rest is random
    // review25e H1: random keys a prefix rule showed (a short or digit-less rest after `x_`, or
    // base64's `/` read as `_`): judged whole, as the rule before it did.
    ['x', 'gqp_ZHiyGuvJcjJ_9ucKrg'],
    ['x', 'g49/agp/TbHEKQKA+OfaXzAYoh/ZlyRMmvdnbFII'],
    ['x', `ghp_${KEY}A1b2`],
    ['x', 'usr_2x8KfPq9RtYb7LcNe2WfUa'], // a mixed-case rest after a prefix: a prefix proves nothing
  ])('?%s=%s', (name, value) => {
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
    // review25c M1: words with a digit, ids and cursors the first value rule masked.
    ['env', 'Production_EU_West_2'],
    ['report', 'Q4-Revenue-Report-2026'],
    ['title', 'Meeting+Room+42+Today'],
    ['title', 'Meeting%20Room%2042%20Today'],
    ['file', 'Annual.Report.Final2.2026'],
    ['record', 'rec_01HQ3K5Z8X9Y7W6V5T4S3R2P1N'], // a ULID after a prefix
    ['end_cursor', CURSOR],
    ['endCursor', CURSOR],
    ['start_cursor', CURSOR],
    ['next_marker', CURSOR],
    ['page_after', CURSOR],
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

// review25c M2: shapes the value rule does not catch under a name no rule knows (README says so);
// pinned, so that widening or narrowing the rule is a decision a test shows.
describe('not caught by shape (said in the README)', () => {
  it.each([
    'JBSWY3DPEHPK3PXP', // base32 (a TOTP secret): upper case and digits only
    'key-3ax6xnjp29jd6fds4gc373sgvjxteol0', // lower case and digits
    'AbCdEf12345678901', // under 20 characters
    'AbCdEf1234567890.XyZ', // holding a `.`
    'ZHiyGuvJcjJHucKrgQwErT', // no digit: about 3 in 100 random 20-character keys, 4 in 1,000 at 32
    // Random keys whose `_`/`-` parts each read as a word (wordy): about 17 in a million at 20
    // characters, none seen in 200,000 at 24 or more (review25e).
    'a_EGTTJYeuvtg1_ZKnc_Ww',
    'Yheq5_yv7_UDXAHbu-5b',
  ])('?x=%s is shown', (value) => {
    const url = `https://h.example/x?x=${value}`;
    expect(redactUrlText(url)).toBe(url);
  });
  it('page_token is masked by its name (a secret word), not judged by its value', () => {
    expect(redactUrlText('https://h.example/x?page_token=abc')).toBe(
      'https://h.example/x?page_token=[redacted]',
    );
  });
});

// review25c L2: the metadata exemption held for any name ending `_endpoint` or `_supported`.
describe('OAuth metadata names only are exempt', () => {
  it.each([
    'token_endpoint',
    'device_authorization_endpoint',
    'revocation_endpoint',
    'token_endpoint_auth_methods_supported',
    'introspection_endpoint_auth_signing_alg_values_supported',
    'id_token_signing_alg_values_supported',
    'authorization_response_iss_parameter_supported', // the sandbox's metadata has it
  ])('%s is not a secret field', (name) => expect(isSecretField(name)).toBe(false));
  it.each(['client_secret_endpoint', 'api_key_endpoint', 'password_supported', 'X-Auth-Token-Endpoint'])(
    '%s is a secret field',
    (name) => expect(isSecretField(name)).toBe(true),
  );
});
