import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess, virtualClock } from '../helpers/context.js';
import { answers, useHostileServer } from '../helpers/hostile.js';
import { TREASURY } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { attackDirs } from './lib.js';

/**
 * Attack class "slow server": the server takes longer than svc's timeout. A mutating command
 * retries with the same idempotency key and meets its own first request still running
 * (409 idempotency_request_in_progress). In-flight means wait: svc waits (bounded, with backoff,
 * honouring Retry-After) and then takes the stored answer — for `oauth create`, the one-time
 * secret, written to the file as on a first try.
 */

const sandbox = useSandbox();
const dirs = attackDirs();
const env = (extra: Record<string, string> = {}) => ({
  ...dirs.env,
  SVC_BASE_URL: sandbox().url,
  SVC_TOKEN: sandbox().adminToken,
  SVC_TENANT: TREASURY,
  ...extra,
});

afterEach(async () => {
  await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { latency_ms: 0 } });
});

const clientsNamed = (name: string) =>
  [...sandbox().state.oauth.clients.values()].filter((c) => c.name === name);

describe('in-flight means wait', () => {
  it('oauth create with 0.8 s latency and --timeout 0.4: one client, its secret in the file', async () => {
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { latency_ms: 800 } });
    const file = join(dirs.root, 'slow.secret');
    const result = await runInProcess(
      [
        '--timeout',
        '0.4',
        'oauth',
        'create',
        '--name',
        'slow-client',
        '--redirect-uri',
        'http://127.0.0.1/cb',
        '--scope',
        'read:exceptions',
        '--secret-file',
        file,
      ],
      env(),
    );
    expect(result.code, result.stderr).toBe(0);
    const created = clientsNamed('slow-client');
    expect(created).toHaveLength(1);
    expect(existsSync(file)).toBe(true);
    const secret = readFileSync(file, 'utf8').trim();
    expect(secret).toMatch(/^svc_cs_/);
    expect(createHash('sha256').update(secret).digest().equals(created[0]!.secretHash!)).toBe(true);
  });

  it('roles create with latency over the timeout: one role, and its id printed', async () => {
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { latency_ms: 800 } });
    const result = await runInProcess(
      [
        '--timeout',
        '0.4',
        '--json',
        'roles',
        'create',
        '--name',
        'slow-role',
        '--permission',
        'exception.read',
      ],
      env(),
    );
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout);
    const roles = sandbox()
      .state.roles.list(TREASURY, { kind: 'custom' })
      .filter((s) => s.role.name === 'slow-role');
    expect(roles.map((s) => s.role.id)).toEqual([printed.id]);
  });
});

describe('the wait is bounded and honours Retry-After', () => {
  const server = useHostileServer();
  const inProgress = (headers: Record<string, string> = {}) =>
    answers.json(
      409,
      { error: { code: 'idempotency_request_in_progress', message: 'still running' } },
      headers,
    );

  it('waits as Retry-After says, then takes the stored answer with the same key', async () => {
    const s = await server();
    s.answer((req, res, received, hit) =>
      (hit < 3 ? inProgress({ 'retry-after': '1' }) : answers.json(201, { id: 'rec_1' }))(
        req,
        res,
        received,
        hit,
      ),
    );
    const clock = virtualClock();
    const result = await runInProcess(
      ['api', 'POST', '/v1/things', '-f', 'a=b'],
      { ...dirs.env, SVC_BASE_URL: s.url, SVC_TOKEN: 'tok_for_the_hostile_server' },
      { clock },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(clock.waits).toEqual([1000, 1000]);
    const keys = s.seen.map((r) => JSON.parse(r.body).idempotency_key);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });

  it('gives up after the bound with exit 1, the outcome unknown, and says the request may still complete', async () => {
    const s = await server();
    s.answer(inProgress({ 'retry-after': '0' }));
    const clock = virtualClock();
    const result = await runInProcess(
      ['api', 'POST', '/v1/things', '-f', 'a=b'],
      { ...dirs.env, SVC_BASE_URL: s.url, SVC_TOKEN: 'tok_for_the_hostile_server' },
      { clock },
    );
    // Not a refusal (exit 6): the platform may yet make the change (attack18b #11).
    expect(result.code).toBe(1);
    // Twelve waits of the shortest in-flight wait (Retry-After: 0 is not "hammer the server").
    expect(clock.waits).toEqual(Array(12).fill(100));
    expect(result.stderr).toContain('the server is still working on this request');
    expect(result.stderr).toContain('it may still complete');
    expect(s.seen).toHaveLength(13);
  });
});
