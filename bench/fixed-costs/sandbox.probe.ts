/**
 * In a warm worker: a sandbox's start and close (and its parts), a seeded state alone, and one
 * in-process command's Context and HTTP connection. Each figure: N repetitions per batch, the
 * batch's mean per repetition, median of 3 batches.
 */
import { expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { proxySettings } from '../../src/http/proxy.js';
import { ProxyRouter, request } from '../../src/http/undici.js';
import { seedWebhooks } from '../../src/sandbox/delivery/events.js';
import { PRIMARY_TENANT_SLUG, seedDemo, tenantId } from '../../src/sandbox/seed.js';
import { buildSandbox, startSandbox } from '../../src/sandbox/server.js';
import { SandboxState } from '../../src/sandbox/state.js';
import { fakeIO, runInProcess, testDeps } from '../../test/helpers/context.js';
import { ACME } from '../../test/helpers/sandbox.js';
import { tempDir } from '../../test/helpers/temp.js';
import { cpuMs, median, record } from './lib.js';

const N = 10;

/** `untimed`: run after the warm-up and after each batch, outside what is measured (closing what a batch built). */
async function per(
  name: string,
  once: () => Promise<unknown> | unknown,
  untimed: () => Promise<void> = async () => {},
): Promise<number> {
  await once(); // warm
  await untimed();
  const batches: number[] = [];
  for (let b = 0; b < 3; b++) {
    const start = cpuMs();
    for (let i = 0; i < N; i++) await once();
    batches.push((cpuMs() - start) / N);
    await untimed();
  }
  const ms = median(batches);
  record({ name, ms: +ms.toFixed(2), batches: batches.map((x) => +x.toFixed(2)) });
  return ms;
}

it('measures', async () => {
  await per('sandbox start+close', async () => (await startSandbox({ port: 0 })).close());
  await per('state seeded (no fastify)', () => {
    const state = new SandboxState({});
    seedDemo(state, 0, 0);
    seedWebhooks(state.webhooks, state.clock, tenantId(PRIMARY_TENANT_SLUG));
  });
  // Each batch's sandboxes closed after it, outside the timing: the 31 of this figure were left
  // open, their apps (and what they registered) kept for the figures after (review29a L5).
  const built: Array<{ close(): Promise<unknown> }> = [];
  await per(
    'buildSandbox (state, Fastify(), plugins, routes registered)',
    async () => {
      built.push((await buildSandbox({})).app);
    },
    async () => {
      for (const app of built.splice(0)) await app.close();
    },
  );
  await per('buildSandbox + ready()', async () => {
    const { app } = await buildSandbox({});
    await app.ready();
    await app.close();
  });
  await per('buildSandbox + listen + close', async () => {
    const { app } = await buildSandbox({});
    await app.listen({ host: '127.0.0.1', port: 0 });
    await app.close();
  });

  const sandbox = await startSandbox({ port: 0 });
  const root = tempDir('svc-fixed-costs-');
  const env = {
    SVC_CONFIG_DIR: `${root}/config`,
    SVC_STATE_DIR: `${root}/state`,
    SVC_CACHE_DIR: `${root}/cache`,
    SVC_BASE_URL: sandbox.url,
    SVC_TOKEN: sandbox.adminToken,
    SVC_TENANT: ACME,
    NO_COLOR: '1',
  };
  await per('Context made and closed (no request)', async () => {
    const fake = fakeIO({ env });
    await createContext(testDeps(fake.io, env), {}).close();
  });
  await per('runInProcess svc --version', async () => {
    expect((await runInProcess(['--version'], env)).code).toBe(0);
  });
  await per('runInProcess svc tenants ls (both sides)', async () => {
    expect((await runInProcess(['tenants', 'ls'], env)).code).toBe(0);
  });
  await per('runInProcess svc me', async () => {
    expect((await runInProcess(['me'], env)).code).toBe(0);
  });
  // One GET /v1/tenants through svc's dispatcher (undici): a new pool and connection each time,
  // against one pool whose connection is kept.
  const headers = { authorization: `Bearer ${sandbox.adminToken}`, 'x-tenant-id': ACME };
  const url = new URL(`${sandbox.url}/v1/tenants`);
  await per('GET /v1/tenants, new pool + connection, closed', async () => {
    const router = new ProxyRouter(proxySettings({}));
    const r = await request(router, url, { method: 'GET', headers });
    await r.body.text();
    await router.close();
  });
  const kept = new ProxyRouter(proxySettings({}));
  await per('GET /v1/tenants, kept pool + connection', async () => {
    const r = await request(kept, url, { method: 'GET', headers });
    await r.body.text();
  });
  await kept.close();
  await sandbox.close();
}, 600_000);
