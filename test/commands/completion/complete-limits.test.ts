/**
 * `svc __complete` (hidden), in-process, at its limits: one deadline for the whole run (a tenant
 * slug's lookup included, no retries, no OAuth refresh from a TAB), and lists longer than a page.
 */
import { rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore, type StoredCredential } from '../../../src/config/store.js';
import { tenantId } from '../../../src/sandbox/seed.js';
import { FIXED_NOW } from '../../helpers/context.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { tempDir } from '../../helpers/temp.js';

const svc = useSandboxContext();

describe('svc __complete: one deadline for the whole run', () => {
  // Answers nothing to GET /v1/me and POST /v1/oauth/token (held open), 401 to anything else.
  let server: Server;
  let url: string;
  const requests: string[] = [];
  const held: ServerResponse[] = [];
  let dir: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      requests.push(`${request.method} ${path}`);
      if (path === '/v1/me' || path === '/v1/oauth/token') held.push(response);
      else response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = tempDir('svc-complete-limits-');
    // The HTTP modules loaded once, so that a short deadline is spent on requests, not on imports.
    expect((await svc.run(['__complete', 'roles'])).stdout).toContain('tenant_admin');
  });
  afterAll(async () => {
    for (const response of held) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    requests.length = 0;
  });

  // Once, not retried: with retries (the old path) the same deadline would see four requests. No
  // timed assertion on how long it took (shared, noisy machines).
  // The deadline is far above a request's need (it was 0.3 s: a loaded machine could reach it before
  // the lookup was sent, and `requests` was empty); the held lookup waits it out (5 s).
  it('a tenant slug is looked up under the same deadline, once (no retries)', async () => {
    const result = await svc.run(['--tenant', 'acme-labs', '__complete', 'roles'], {
      env: { SVC_BASE_URL: url, SVC_TIMEOUT: '5', SVC_COMPLETION_TIMEOUT: '5' },
    });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(requests).toEqual(['GET /v1/me']);
  });

  it('an expired OAuth session is not refreshed from a TAB (nothing sent to the token endpoint, nothing stored)', async () => {
    const config = join(dir, 'config');
    const store = new ConfigStore(config);
    await store.setProfileValues('px', { base_url: url, tenant: tenantId('acme-labs') });
    const credential: StoredCredential = {
      type: 'oauth',
      access_token: 'at-expired',
      refresh_token: 'rt-0123456789',
      expires_at: '2000-01-01T00:00:00.000Z',
      client_id: 'client-1',
      token_url: `${url}/v1/oauth/token`,
      origin: url,
      session: 'session-1',
      obtained_at: '2000-01-01T00:00:00.000Z',
    };
    await store.setCredential('px', credential);
    const env = {
      SVC_CONFIG_DIR: config,
      SVC_TOKEN: undefined,
      SVC_BASE_URL: undefined,
      SVC_TENANT: undefined,
    };
    const result = await svc.run(['-p', 'px', '__complete', 'roles'], {
      // Far above need (GET /v1/roles is answered at once); a refresh, held, would wait it out.
      env: { ...env, SVC_TIMEOUT: '5', SVC_COMPLETION_TIMEOUT: '5' },
    });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(requests).toEqual(['GET /v1/roles']);
    expect(new ConfigStore(config).credential('px')).toEqual(credential);
  });
});

describe('svc __complete: the whole run’s deadline, not only each request’s', () => {
  // Holds every request open, answering nothing.
  let server: Server;
  let url: string;
  const held: ServerResponse[] = [];
  beforeAll(async () => {
    server = createServer((_request, response) => held.push(response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const response of held) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  // Each request's own timeout is a timer that never fires here (the clock's seam), so only the
  // run's deadline (Context.forCompletion: a signal linked to the command's and a timeout) can end
  // it: without it the TAB press waited on the server for ever (review24d L2). No time is
  // asserted; the test's own timeout is only a bound far above the 0.2 s deadline.
  it('ends a TAB press on a server that never answers: nothing offered, exit 0', async () => {
    const result = await svc.run(['__complete', 'roles'], {
      env: { SVC_BASE_URL: url, SVC_TIMEOUT: '0.2' },
      clock: { now: () => FIXED_NOW, timer: () => () => {} },
    });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  }, 30_000);
});

// SVC_COMPLETION_TIMEOUT: the TAB-time limit a user on a slow link (or a loaded machine) raises.
// Its length is not asserted (no timed assertions); that it is read is: a value out of its range
// offers nothing, as a bad SVC_TIMEOUT does (a TAB press cannot say why: stderr is the prompt).
describe('svc __complete: SVC_COMPLETION_TIMEOUT', () => {
  it('a value in its range: the values, as without it', async () => {
    const result = await svc.run(['__complete', 'roles'], { env: { SVC_COMPLETION_TIMEOUT: '60' } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('tenant_admin');
  });

  it.each(['0', '61', 'abc'])(
    'SVC_COMPLETION_TIMEOUT=%s: nothing offered, nothing said, exit 0',
    async (raw) => {
      const result = await svc.run(['__complete', 'roles'], { env: { SVC_COMPLETION_TIMEOUT: raw } });
      expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    },
  );
});

describe('svc __complete: lists longer than a page', () => {
  const APAC = tenantId('acme-apac');
  const names = Array.from({ length: 130 }, (_, i) => `zz_role_${String(i + 1).padStart(3, '0')}`);
  beforeAll(async () => {
    for (const name of names) {
      const made = await call(svc.sandbox(), 'POST', '/v1/roles', {
        token: svc.sandbox().adminToken,
        tenant: APAC,
        body: { name, permissions: ['exception.read'], idempotency_key: `limits-${name}` },
      });
      expect(made.status, made.text).toBe(201);
    }
  });

  it('roles: every page, the last custom role included', async () => {
    const result = await svc.run(['--tenant', APAC, '__complete', 'roles']);
    expect(result.code).toBe(0);
    const offered = result.stdout.split('\n').filter(Boolean);
    expect(offered.slice(-names.length)).toEqual(names);
    expect(offered).toContain('tenant_admin');
  });
});
