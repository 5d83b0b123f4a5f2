import { describe, expect, it } from 'vitest';
import { sentClientSecret } from '../../src/auth/client-secret.js';
import { reloginHint } from '../../src/auth/refresh.js';
import type { StoredCredential } from '../../src/config/store.js';

/**
 * review28c F4: a login through svc's own public client svc-cli that holds a secret (stored by an
 * older svc) neither sends it (the server answers invalid_client) nor is told to pass one.
 */
const stored = (client_id: string) =>
  ({ type: 'oauth', client_id, client_secret: 'old-secret-0123456789' }) as unknown as StoredCredential;

describe('a stored secret for the public client svc-cli', () => {
  it('is not sent; a confidential client still sends its own', () => {
    expect(sentClientSecret(stored('svc-cli'))).toBeUndefined();
    expect(sentClientSecret(stored('vendor-portal'))).toBe('old-secret-0123456789');
  });

  it('the relogin hint never tells svc-cli to pass --client-secret-file', () => {
    expect(reloginHint('svc login', stored('svc-cli'))).toBe('run `svc login` again');
    expect(reloginHint('svc login', stored('vendor-portal'))).toBe(
      'run `svc login --client-id vendor-portal --client-secret-file FILE` again (a confidential client: its secret from --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET)',
    );
  });
});
