import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { isoSeconds } from '../../src/api/time.js';
import type { Context } from '../../src/context.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/server.js';
import { runInProcess, testContext, useTempDirs, type VerbOptions } from './context.js';
import { tempConfigDir } from './svc.js';

/** The tenant useSandboxContext() acts in. */
export const ACME = tenantId('acme-treasury');

/** A real sandbox on an ephemeral loopback port for the tests of one file. */
export function useSandbox(options: SandboxOptions = {}): () => Sandbox {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, ...options });
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  return () => {
    if (!sandbox) throw new Error('sandbox not started');
    return sandbox;
  };
}

/**
 * A sandbox on an ephemeral port for the tests of one file, and in-process svc against it as its
 * admin in Acme Treasury (SVC_TOKEN, SVC_TENANT), with temporary config, state and cache
 * directories, NO_COLOR, and the clock at FIXED_NOW. `context()` gives a Context for a verb's
 * run function; `run()` runs a whole command line. Options override any of it per call.
 * `{ tenant: false }`: no SVC_TENANT, for svc plan and svc apply, which take it as a bound
 * (an access file names its own tenants).
 */
export function useSandboxContext(options: SandboxOptions = {}, run: { tenant?: false } = {}) {
  const sandbox = useSandbox(options);
  const dirs = useTempDirs();
  const opened: Context[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((ctx) => ctx.close()));
  });
  const env = (): Record<string, string | undefined> => ({
    ...dirs(),
    SVC_BASE_URL: sandbox().url,
    SVC_TOKEN: sandbox().adminToken,
    ...(run.tenant === false ? {} : { SVC_TENANT: ACME }),
    NO_COLOR: '1',
    // `svc __complete`'s limit (1.5 s by default) far above need, so a loaded machine never
    // decides what a completion offers; tests of the limit set SVC_TIMEOUT below it.
    SVC_COMPLETION_TIMEOUT: '60',
  });
  return {
    sandbox,
    env,
    context(verb: VerbOptions = {}) {
      const made = testContext({ ...verb, env: { ...env(), ...verb.env } });
      opened.push(made.ctx);
      return made;
    },
    run(argv: string[], verb: Omit<VerbOptions, 'globals'> = {}) {
      return runInProcess(argv, { ...env(), ...verb.env }, verb);
    },
  };
}

/**
 * A sandbox for the file, and svc in-process against it as a pipe sees it, on the real clock (the
 * sandbox's, until a test moves it): `env` is Acme Treasury's admin with a token minted before
 * each test at the sandbox's current time (a test that moves the clock 30 days still starts with a
 * live one), and `dir` the private SVC_CONFIG_DIR. Pass `{ env }` (or a variation) to `svc`.
 */
export function useLiveAdmin() {
  const sandbox = useSandbox();
  const dir = tempConfigDir();
  const env: Record<string, string> = {};
  beforeAll(() => {
    Object.assign(env, { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox().url, SVC_TOKEN: '', SVC_TENANT: ACME });
  });
  beforeEach(() => {
    env.SVC_TOKEN = sandbox().issueToken('usr_admin').token;
  });
  const svc = (args: string[], options: { env?: Record<string, string>; input?: string } = {}) =>
    runInProcess(
      args,
      { SVC_CACHE_DIR: join(dir, '..', 'cache'), SVC_STATE_DIR: join(dir, '..', 'state'), ...options.env },
      { now: Date.now(), ...(options.input === undefined ? {} : { stdin: options.input }) },
    );
  return { sandbox, dir, env, svc };
}

/**
 * A plain HTTP call to the sandbox, outside svc's client (to test the server itself): `body` is
 * sent as JSON, `text` as given.
 */
export async function call(
  sandbox: Sandbox,
  method: string,
  path: string,
  options: {
    token?: string;
    tenant?: string;
    org?: string;
    body?: unknown;
    /** A body sent as given (text, or bytes), with the content-type of `headers` (fetch says text/plain otherwise). */
    text?: string | Uint8Array;
    headers?: Record<string, string>;
  } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.tenant) headers['x-tenant-id'] = options.tenant;
  if (options.org) headers['x-svc-org-id'] = options.org;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const sent = options.text ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers,
    ...(sent === undefined ? {} : { body: sent }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** Moves the sandbox's clock `seconds` ahead (POST /_sandbox/clock); it must answer 200. */
export async function advanceClock(sandbox: Sandbox, seconds: number): Promise<void> {
  const r = await call(sandbox, 'POST', '/_sandbox/clock', { body: { advance_seconds: seconds } });
  expect(r.status, r.text).toBe(200);
}

/**
 * Sets the sandbox's clock to `ms` (back too, which the route does not allow): a test asserting a
 * terminal's relative times ("2 years ago") puts the platform's clock at its own FIXED_NOW, since
 * svc measures them from the platform's time once it is more than a minute off (attack22 F1).
 */
export function setSandboxClock(sandbox: Sandbox, ms: number): void {
  sandbox.state.clock.advance(ms - sandbox.state.clock.now());
}

/** The sandbox's time (its clock moves with POST /_sandbox/clock), in ms. */
export async function sandboxNow(sandbox: Sandbox): Promise<number> {
  return Date.parse((await call(sandbox, 'GET', '/_sandbox/clock')).body.now);
}

/** Whether `iso` is within 5 s of `ms`: for times the sandbox computes from its running clock. */
export const near = (iso: unknown, ms: number): boolean => Math.abs(Date.parse(iso as string) - ms) < 5000;

/** How many requests the sandbox has answered so far (to show that a refusal sent nothing). */
export async function requestCount(sandbox: Sandbox): Promise<number> {
  const stats = (await call(sandbox, 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.values(stats).reduce((a, b) => a + b, 0);
}

let adminGrants = 0;
/**
 * The sandbox's admin grants `roleId` to `userId` in `tenant` (expiring at `expiresAt`, else
 * permanent); 201 expected, or the test fails; the assignment.
 */
export async function adminGrant(
  sandbox: Sandbox,
  tenant: string,
  userId: string,
  roleId: string,
  expiresAt?: string | null,
) {
  const r = await call(sandbox, 'POST', `/v1/users/${userId}/roles`, {
    token: sandbox.adminToken,
    tenant,
    body: {
      role_id: roleId,
      justification: 'test grant',
      idempotency_key: `admin-grant-${++adminGrants}`,
      ...(expiresAt ? { expires_at: expiresAt } : {}),
    },
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

let apiKeys = 0;
/**
 * The sandbox's admin creates a publishable API key named `name` in acme-treasury; 201 expected, or
 * the test fails; its id and the key itself.
 */
export async function newApiKey(sandbox: Sandbox, name: string): Promise<{ id: string; key: string }> {
  const made = await call(sandbox, 'POST', `/v1/tenants/${ACME}/api-keys`, {
    token: sandbox.adminToken,
    tenant: ACME,
    body: { kind: 'publishable', name, idempotency_key: `api-key-${name}-${++apiKeys}-${Date.now()}` },
  });
  expect(made.status, made.text).toBe(201);
  return made.body as { id: string; key: string };
}

/**
 * The set-up of the tests of who may hand out what (test/sandbox/*-rules.test.ts): a sandbox with
 * 20 generated users, callers in acme-treasury (the admin, or a user by id), idempotency keys
 * named after the file, and times counted from the sandbox's clock.
 */
export function useGrantRules(name: string) {
  const sandbox = useSandbox({ users: 20 });
  const treasury = tenantId('acme-treasury');
  let keys = 0;
  let now = 0;
  beforeAll(async () => {
    now = await sandboxNow(sandbox());
  });
  return {
    sandbox,
    TREASURY: treasury,
    key: () => `${name}-${++keys}`,
    user: (n: number) => `usr_bulk_${String(n).padStart(6, '0')}`,
    admin: () => ({ token: sandbox().adminToken, tenant: treasury }),
    as: (userId: string) => ({
      token: sandbox().issueToken(userId, { expiresInSeconds: 86_400 }).token,
      tenant: treasury,
    }),
    inHours: (hours: number) => isoSeconds(now + hours * 3600_000),
    /** A grant made by the admin (201 expected): adminGrant in Acme Treasury. */
    grant: (userId: string, roleId: string, expiresAt?: string | null) =>
      adminGrant(sandbox(), treasury, userId, roleId, expiresAt),
    /** A custom role made by the admin (201 expected). */
    async customRole(name: string, permissions: string[]) {
      const r = await call(sandbox(), 'POST', '/v1/roles', {
        token: sandbox().adminToken,
        tenant: treasury,
        body: { name, permissions, idempotency_key: `${name}-role-${++keys}` },
      });
      expect(r.status, r.text).toBe(201);
      return r.body;
    },
    /** A refusal as [status, code, message], to compare whole. */
    refusal: (r: { status: number; body: any }) => [r.status, r.body.error?.code, r.body.error?.message],
  };
}
