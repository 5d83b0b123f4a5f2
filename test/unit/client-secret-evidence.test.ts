/**
 * An OAuth client's fingerprint against a stored answer's secret (clientSecretEvidence, brief s29
 * fixrot 4): two secrets sharing their last four characters (once in 16.7 million) read as the
 * same by secret_last4 alone; the sandbox's longer secret_sha256_prefix (the first 16 hex of the
 * secret's SHA-256) tells them apart and is preferred. A server giving only secret_last4, or
 * neither, or a prefix that is no hex, keeps working as before.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clientSecretEvidence } from '../../src/commands/secret-evidence.js';
import { fingerprintOf } from '../../src/sandbox/domain/oauth.js';

const stored = { client_secret: 'svc_cs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWXYZ' };
const other = 'svc_cs_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBWXYZ';
const prefix = (secret: string) => createHash('sha256').update(secret).digest('hex').slice(0, 16);

describe('clientSecretEvidence', () => {
  it('another secret with the same last four characters: replaced, told by the longer fingerprint', () => {
    expect(clientSecretEvidence(stored, { secret_last4: 'WXYZ', secret_sha256_prefix: prefix(other) })).toBe(
      false,
    );
  });

  it('the same secret: current', () => {
    const now = { secret_last4: 'WXYZ', secret_sha256_prefix: prefix(stored.client_secret) };
    expect(clientSecretEvidence(stored, now)).toBe(true);
    expect(
      clientSecretEvidence(stored, { secret_sha256_prefix: prefix(stored.client_secret).toUpperCase() }),
    ).toBe(true);
  });

  it('the sandbox gives the same fingerprint svc computes', () => {
    expect(fingerprintOf(stored.client_secret)).toBe(prefix(stored.client_secret));
  });

  it('a server with secret_last4 only (or a prefix that is no hex): last4 decides, as before', () => {
    expect(clientSecretEvidence(stored, { secret_last4: 'WXYZ' })).toBe(true);
    expect(clientSecretEvidence(stored, { secret_last4: 'QQQQ' })).toBe(false);
    expect(clientSecretEvidence(stored, { secret_last4: 'WXYZ', secret_sha256_prefix: 'not-hex' })).toBe(
      true,
    );
  });

  it('a server with neither: undefined (the times decide)', () => {
    expect(clientSecretEvidence(stored, {})).toBeUndefined();
    expect(clientSecretEvidence(stored, { secret_last4: null, secret_sha256_prefix: null })).toBeUndefined();
  });
});
