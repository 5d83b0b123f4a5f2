import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { needs } from '../helpers/needs.js';
import { svc } from '../helpers/svc.js';
import { useTempDir } from '../helpers/temp.js';
import { selfSignedCertificate } from '../helpers/tls.js';

// A real HTTPS API with a self-signed certificate for 127.0.0.1 (made by openssl). Spawned:
// NODE_EXTRA_CA_CERTS is read once, when a Node process starts.
const dir = useTempDir('svc-tls-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let certPath: string;
let server: Server;
let url: string;

needs('openssl').describe('HTTPS', () => {
  beforeAll(async () => {
    const made = await selfSignedCertificate('svc test CA', dir);
    certPath = made.certPath;
    const { key, cert } = made;
    server = createServer({ key, cert }, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'usr_tls',
          type: 'user',
          name: 'TLS User',
          email: null,
          // One tenant of the caller's: a tenant-less answer earns `svc me` a note (tenant-ref.ts roleLessNote).
          tenant_id: 'ten_tls',
          tenants: [{ id: 'ten_tls', slug: 'tls', display_name: 'TLS', role: 'tenant_admin' }],
          org: null,
          credential: { kind: 'jwt', expires_at: null, scopes: null },
          seen_auth: req.headers.authorization === 'Bearer tls-token-123',
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('trusts a private CA given in NODE_EXTRA_CA_CERTS', async () => {
    const r = await svc(['me', '--json'], {
      env: {
        SVC_BASE_URL: url,
        SVC_TOKEN: 'tls-token-123',
        NODE_EXTRA_CA_CERTS: certPath,
        SVC_CONFIG_DIR: join(dir, 'cfg'),
      },
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'usr_tls', seen_auth: true });
  });

  it('NODE_TLS_REJECT_UNAUTHORIZED=0: still verified, said once in svc’s words, no Node warning, nothing sent', async () => {
    let requests = 0;
    server.on('request', () => requests++);
    const r = await svc(['me'], {
      env: {
        SVC_BASE_URL: url,
        SVC_TOKEN: 'tls-token-123',
        SVC_MAX_RETRIES: '0',
        SVC_CONFIG_DIR: join(dir, 'cfg'),
        NODE_TLS_REJECT_UNAUTHORIZED: '0',
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "warning: NODE_TLS_REJECT_UNAUTHORIZED=0 is ignored: svc verifies the platform's TLS certificate (and a proxy's); trust a private certificate authority with NODE_EXTRA_CA_CERTS=/path/to/ca.pem\n" +
        `error: the TLS certificate of ${url} is not trusted: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT); if it is signed by your organisation's own certificate authority, give that CA's certificate to svc with NODE_EXTRA_CA_CERTS=/path/to/ca.pem; nothing was sent\n`,
    );
    expect(requests).toBe(0);
  });

  it('refuses an untrusted certificate with a clear error (exit 1)', async () => {
    const r = await svc(['me'], {
      env: {
        SVC_BASE_URL: url,
        SVC_TOKEN: 'tls-token-123',
        SVC_MAX_RETRIES: '0',
        SVC_CONFIG_DIR: join(dir, 'cfg'),
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: the TLS certificate of ${url} is not trusted: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT); if it is signed by your organisation's own certificate authority, give that CA's certificate to svc with NODE_EXTRA_CA_CERTS=/path/to/ca.pem; nothing was sent\n`,
    );
  });
});
