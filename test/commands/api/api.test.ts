/**
 * `svc api`, in-process against a sandbox: refusals before any request, API errors with their
 * exit codes (the body on stdout as the API sent it, one line on stderr), the --debug trace with
 * secrets masked, and every call surviving injected 503s without a side effect twice.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_ORG, tenantId } from '../../../src/sandbox/seed.js';
import { call, requestCount, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

const requests = () => requestCount(svc.sandbox());

describe('svc api', () => {
  it.each([
    [
      ['api', 'FETCH', '/v1/me'],
      'error: unknown HTTP method "FETCH"; use one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS\n',
    ],
    [
      ['api', 'GET', 'https://evil.example/v1/me'],
      'error: svc api takes a path such as /v1/me, not a URL; the base URL comes from --base-url, SVC_BASE_URL or the profile, so your credential only goes there\n',
    ],
  ])('%j exits 2 before any request', async (argv, stderr) => {
    const before = await requests();
    expect(await svc.run(argv)).toEqual({ code: 2, stdout: '', stderr });
    expect(await requests()).toBe(before);
  });

  it('an unknown record: the error body on stdout, one line on stderr, exit 5', async () => {
    const r = await svc.run(['api', 'GET', '/v1/reconciliations/rec_missing']);
    expect(r.code).toBe(5);
    const requestId = JSON.parse(r.stdout).error.request_id as string;
    expect(requestId).toMatch(/^req_[0-9a-f]+$/);
    expect(r.stdout).toBe(
      `{\n  "error": {\n    "code": "not_found",\n    "message": "reconciliations record rec_missing not found",\n    "request_id": "${requestId}"\n  }\n}\n`,
    );
    expect(r.stderr).toBe(
      `error: reconciliations record rec_missing not found (HTTP 404, not_found, request ${requestId})\n`,
    );
  });

  it('a reused idempotency key with other parameters is a conflict (exit 6)', async () => {
    const ok = await svc.run(['api', 'POST', '/v1/exceptions', '-f', 'idempotency_key=k-1', '-f', 'text=a']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ surface: 'exceptions', text: 'a' });
    const clash = await svc.run([
      'api',
      'POST',
      '/v1/exceptions',
      '-f',
      'idempotency_key=k-1',
      '-f',
      'text=b',
    ]);
    expect(clash.code).toBe(6);
    const requestId = JSON.parse(clash.stdout).error.request_id as string;
    expect(JSON.parse(clash.stdout)).toEqual({
      error: {
        code: 'idempotency_key_reused',
        message: 'idempotency key "k-1" was already used with different parameters',
        request_id: requestId,
      },
    });
    expect(clash.stderr).toBe(
      `error: idempotency key "k-1" was already used with different parameters (HTTP 409, idempotency_key_reused, request ${requestId})\n`,
    );
  });

  it('--debug masks the bearer token and secret-named fields in the trace', async () => {
    const canary = svc.sandbox().issueToken('usr_admin').token;
    const r = await svc.run(
      ['--debug', 'api', 'POST', '/v1/exceptions', '-f', 'client_secret=canary-secret-value'],
      {
        env: { SVC_TOKEN: canary },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('> authorization: Bearer [redacted]\n');
    expect(r.stderr).toMatch(/\n> \{"client_secret":"\[redacted\]","idempotency_key":"svc_[0-9a-f-]+"\}\n/);
    expect(r.stderr).toMatch(/\n< \{"id":"rec_\w+",.*"client_secret":"\[redacted\]"\}\n/);
    expect(r.stderr).not.toContain('canary-secret-value');
    expect(r.stderr + r.stdout).not.toContain(canary);
  });
});

describe('under injected 503s with Retry-After', () => {
  // 30% of /v1 requests answer 503 with Retry-After: 1, half of them after the handler ran (the
  // change was applied, the answer lost); a few connections are dropped outright.
  const faulty = useSandboxContext({
    tenants: 300,
    faults: { fail_rate: 0.3, retry_after: '1', phase: 'both', drop_rate: 0.03, seed: 20261121 },
  });
  const run = (argv: string[]) => faulty.run(argv, { env: { SVC_MAX_RETRIES: '8' }, now: Date.now() });

  it('every command succeeds and no POST side effect happens twice', async () => {
    for (const argv of [['me'], ['auth', 'status'], ['tenants', 'ls'], ['tenants', 'ls', '--tier', 'pro']]) {
      const r = await run(argv);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
    }
    const all = await run(['tenants', 'ls', '--all', '--ndjson', '--org', DEMO_ORG]);
    expect(all.code, all.stderr).toBe(0);
    const ids = all.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toHaveLength(305);
    expect(new Set(ids).size).toBe(305);

    for (let i = 0; i < 12; i++) {
      const r = await run(['api', 'POST', '/v1/accounts', '-F', `n=${i}`]);
      expect(r.code, r.stderr).toBe(0);
    }
    const listed = await run(['api', 'GET', '/v1/accounts', '--paginate', '--ndjson']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(
      listed.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).n),
    ).toEqual([...Array(12).keys()]);
    expect(faulty.sandbox().state.records.count(tenantId('acme-treasury'), 'accounts')).toBe(12);
  });
});
