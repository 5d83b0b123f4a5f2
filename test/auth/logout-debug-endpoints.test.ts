import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { redactUrl, SecretRegistry } from '../../src/http/redact.js';
import { runInProcess } from '../helpers/context.js';
import { sandboxSession } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

// attack25b L2: the OAuth endpoints a server's metadata names (`token_endpoint`,
// `revocation_endpoint`, …) were learnt as secrets by their names, so the trace read
// `* POST [redacted]` and never said which endpoint was called.
const sandbox = useSandbox();
const dir = useTempDir('svc-logout-debug-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('svc --debug logout', () => {
  it('names the endpoints from the metadata, with only their secrets masked', async () => {
    const credential = await sandboxSession(sandbox());
    const store = new ConfigStore(dir);
    await store.setProfileValues('default', { base_url: sandbox().url });
    await store.setCredential('default', credential);
    const r = await runInProcess(['--debug', 'logout'], { SVC_CONFIG_DIR: dir, NO_COLOR: '1' });
    expect(r.code, r.stderr).toBe(0);
    const url = sandbox().url;
    const metadata = r.stderr.split('\n').find((line) => line.startsWith('< {"issuer"')) ?? '';
    for (const [name, path] of [
      ['authorization_endpoint', '/oauth/authorize'],
      ['token_endpoint', '/v1/oauth/token'],
      ['revocation_endpoint', '/v1/oauth/revoke'],
      ['device_authorization_endpoint', '/v1/oauth/device_authorization'],
    ])
      expect(metadata).toContain(`"${name}":"${url}${path}"`);
    expect(metadata).toContain('"token_endpoint_auth_methods_supported":["client_secret_basic"');
    expect(r.stderr).toContain(`* POST ${url}/v1/oauth/revoke\n`);
    expect(r.stderr).toContain('> token=%5Bredacted%5D&token_type_hint=refresh_token&client_id=svc-cli\n');
    expect(r.stderr).not.toContain(credential.refresh_token);
  });
});

describe('the secrets a run learns from an answer', () => {
  it('are not the endpoints of the metadata: a request line to one is shown, its secrets masked', () => {
    const registry = new SecretRegistry();
    const token = 'https://as.example.com/oauth/token';
    const device = 'https://as.example.com/oauth/device?api_key=k-0123456789';
    registry.learn({
      issuer: 'https://as.example.com',
      token_endpoint: token,
      device_authorization_endpoint: device,
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
      access_token: 'opaque-access-token-0123',
    });
    expect(registry.redact(`* POST ${token}`)).toBe(`* POST ${token}`);
    expect(registry.redact(`* POST ${redactUrl(new URL(device))}`)).toBe(
      '* POST https://as.example.com/oauth/device?api_key=[redacted]',
    );
    expect(registry.redact('client_secret_post, opaque-access-token-0123')).toBe(
      'client_secret_post, [redacted]',
    );
  });
});
