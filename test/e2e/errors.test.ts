import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { sandboxEnv, svc } from '../helpers/svc.js';

const sandbox = useSandbox();
const env = sandboxEnv(sandbox);

const requestCount = async () =>
  Object.values((await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>).reduce(
    (a, b) => a + b,
    0,
  );

describe('exit codes and one-line errors', () => {
  it.each([
    [['tenants', 'ls', '--limit', '0'], /--limit must be an integer from 1 to 10000000, got "0"/],
    [['tenants', 'ls', '--limit', '10000001'], /--limit must be an integer from 1 to 10000000/],
    [['tenants', 'ls', '--limit', 'ten'], /--limit must be an integer/],
    [
      ['tenants', 'ls', '--tier', 'gold'],
      /argument 'gold' is invalid\. Allowed choices are free, pro, enterprise; see `svc tenants ls --help`/,
    ],
    [['tenants', 'ls', '--bogus'], /unknown option '--bogus'/],
    [['tenants', 'ls', '--json', '--ndjson'], /--json and --ndjson cannot be combined/],
    [['tenant', 'lss'], /unknown command 'lss'/],
    [['api', 'FETCH', '/v1/me'], /unknown HTTP method "FETCH"/],
    [['api', 'GET', 'https://evil.example/v1/me'], /takes a path such as \/v1\/me, not a URL/],
    [['--timeout', '0', 'me'], /--timeout must be a number of seconds/],
  ])('svc %j → exit 2 before any request', async (args, message) => {
    const before = await requestCount();
    const r = await svc(args, { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
    expect(await requestCount()).toBe(before);
  });

  it.each([
    [
      'no credential',
      { SVC_TOKEN: undefined },
      ['me'],
      3,
      /not logged in: profile "default" has no credential; run `svc login`/,
    ],
    [
      'a rejected credential',
      { SVC_TOKEN: 'eyJhbGciOiJIUzI1NiJ9.e30.bad' },
      ['me'],
      3,
      /SVC_TOKEN was rejected: .*HTTP 401|SVC_TOKEN was rejected/,
    ],
    [
      'a tenant not in the token',
      { SVC_TENANT: tenantId('wayne-clearing') },
      ['me'],
      4,
      /not one of your credential's tenants \(HTTP 403, tenant_forbidden, request req_/,
    ],
    [
      'an unknown record',
      {},
      ['api', 'GET', '/v1/reconciliations/rec_missing'],
      5,
      /reconciliations record rec_missing not found \(HTTP 404, not_found/,
    ],
    ['no base URL', { SVC_BASE_URL: undefined }, ['me'], 2, /no API base URL for profile "default"/],
  ])('%s → exit %i', async (_name, change, args, code, message) => {
    const r = await svc(args, { env: { ...env, ...change } });
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('reports a reused idempotency key as a conflict (exit 6)', async () => {
    const ok = await svc(['api', 'POST', '/v1/exceptions', '-f', 'idempotency_key=k-1', '-f', 'text=a'], {
      env,
    });
    expect(ok.code).toBe(0);
    const clash = await svc(['api', 'POST', '/v1/exceptions', '-f', 'idempotency_key=k-1', '-f', 'text=b'], {
      env,
    });
    expect(clash.code).toBe(6);
    expect(JSON.parse(clash.stdout).error.code).toBe('idempotency_key_reused');
  });

  it('prints errors as one JSON object on stderr with --json', async () => {
    const r = await svc(['me', '--json'], { env: { ...env, SVC_TENANT: tenantId('wayne-clearing') } });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'tenant_forbidden',
        message: expect.stringContaining('not one of your credential'),
        exit_code: 4,
        status: 403,
        request_id: expect.stringMatching(/^req_/),
      },
    });
  });

  it('Ctrl-C aborts the request in flight and exits 130', async () => {
    sandbox().faults.update({ latency_ms: 10_000 });
    try {
      const { spawn } = await import('node:child_process');
      const { BIN, baseEnv } = await import('../helpers/svc.js');
      const child = spawn(process.execPath, [BIN, 'me'], { env: baseEnv(env) });
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const started = Date.now();
      setTimeout(() => child.kill('SIGINT'), 500);
      const code = await new Promise((r) => child.on('close', r));
      expect(code).toBe(130);
      expect(stderr).toBe('error: interrupted; the request was cancelled\n');
      // Well before the server would have answered.
      expect(Date.now() - started).toBeLessThan(9_000);
    } finally {
      sandbox().faults.update({ latency_ms: 0 });
    }
  });

  it('a network failure exits 1 with the cause', async () => {
    const r = await svc(['me'], {
      env: { ...env, SVC_BASE_URL: 'http://127.0.0.1:9', SVC_MAX_RETRIES: '0' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9: .*ECONNREFUSED/);
  });
});
