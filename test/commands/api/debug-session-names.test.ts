/**
 * attack21b F5: `--debug` masked a session id in a URL (`?session_id=`, `;jsessionid=`) but traced
 * it whole as a header (`X-Session-Id`, `X-Session`) or a JSON field (`session_id`, `jsessionid`),
 * and one-time codes (`mfa_code`, `totp`, `verification_code`) too: only the URL's rule knew those
 * names. One list now serves URLs, forms, headers and JSON fields (src/api/secret-names.ts).
 */
import { describe, expect, it } from 'vitest';
import { isSecretField } from '../../../src/api/secret-names.js';
import { isSecretHeader } from '../../../src/http/redact.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const SECRETS = [
  'QSIDSECRET1234567',
  'BSIDSECRET1234567',
  'BJSSECRET12345678',
  'HSIDSECRET1234567',
  'HSESSECRET1234567',
  'MFASECRET12345678',
  'TOTPSECRET1234567',
  'VERIFSECRET123456',
  'PHPSECRET12345678',
];

describe('--debug: a session id and a one-time code, under any of their names', () => {
  it('are masked in a header and a JSON field as in the URL; other fields are traced as sent', async () => {
    const r = await svc.run([
      '--debug',
      'api',
      'POST',
      '/v1/exceptions?session_id=QSIDSECRET1234567',
      '-f',
      'session_id=BSIDSECRET1234567',
      '-f',
      'jsessionid=BJSSECRET12345678',
      '-f',
      'PHPSESSID=PHPSECRET12345678',
      '-f',
      'mfa_code=MFASECRET12345678',
      '-f',
      'totp=TOTPSECRET1234567',
      '-f',
      'verification_code=VERIFSECRET123456',
      '-f',
      'country_code=GB',
      '-f',
      'state=open',
      '-H',
      'X-Session-Id: HSIDSECRET1234567',
      '-H',
      'X-Session: HSESSECRET1234567',
    ]);
    // The sandbox refuses the query parameter (exit 2) after the request is traced: the trace is the point.
    expect(r.stderr).toContain('< 400 Bad Request');
    expect(SECRETS.filter((secret) => r.stderr.includes(secret))).toEqual([]);
    expect(r.stderr).toContain('> x-session-id: [redacted]\n');
    expect(r.stderr).toContain('> x-session: [redacted]\n');
    expect(r.stderr).toContain('?session_id=[redacted]');
    const sent = /\n> (\{"session_id".*)\n/.exec(r.stderr)?.[1];
    expect(JSON.parse(sent ?? 'null')).toEqual({
      session_id: '[redacted]',
      jsessionid: '[redacted]',
      PHPSESSID: '[redacted]',
      mfa_code: '[redacted]',
      totp: '[redacted]',
      verification_code: '[redacted]',
      country_code: 'GB',
      state: 'open',
      idempotency_key: expect.stringMatching(/^svc_/),
    });
  });

  it.each([
    ['session_id', true],
    ['sessionId', true],
    ['jsessionid', true],
    ['PHPSESSID', true],
    ['sid', true],
    ['mfa_code', true],
    ['recovery_codes', true],
    ['totp', true],
    ['passcode', true],
    ['session_expires_at', false],
    ['session_count', false],
    ['country_code', false],
    ['error_codes', false],
    ['state', false],
    ['consideration', false],
  ])('a field named %s is secret: %s', (name, secret) => {
    expect(isSecretField(name)).toBe(secret);
  });

  it.each([
    ['X-Session-Id', true],
    ['X-Session', true],
    ['X-MFA-Code', true],
    ['X-Request-Id', false],
  ])('a header named %s is secret: %s', (name, secret) => {
    expect(isSecretHeader(name)).toBe(secret);
  });
});
