/**
 * Over 300 lines: one verb's whole contract, below.
 * `svc api`, in-process against a sandbox: refusals before any request, API errors with their
 * exit codes (the body on stdout as the API sent it, one line on stderr), the --debug trace with
 * secrets masked, every call surviving injected 503s without a side effect twice, and svc api in
 * pipelines (issue 13: GET assumed, -F typed JSON, idempotency keys only on platform POSTs).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../../src/sandbox/delivery/events.js';
import { DEMO_ORG, tenantId } from '../../../src/sandbox/seed.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { answers, hostileEnv, useHostileServer } from '../../helpers/hostile.js';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';
import { tempDir } from '../../helpers/temp.js';

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

  it("a misspelled query parameter (svc's --tier for the API's subscription_tier) is refused, not ignored (exit 2)", async () => {
    const r = await svc.run(['api', 'GET', '/v1/tenants', '-f', 'tier=free']);
    const requestId = JSON.parse(r.stdout).error.request_id as string;
    expect([r.code, r.stderr]).toEqual([
      2,
      `error: tier is an unknown query parameter; this operation takes: limit, cursor, role, subscription_tier (HTTP 400, invalid_request, request ${requestId})\n`,
    ]);
    const fixed = await svc.run(['api', 'GET', '/v1/tenants', '-f', 'subscription_tier=free']);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(
      new Set(JSON.parse(fixed.stdout).items.map((t: { subscription_tier: string }) => t.subscription_tier)),
    ).toEqual(new Set(['free']));
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
  // 30% of /v1 requests answer 503 with Retry-After: 0 (the wait is not what is tested here:
  // test/attack/slow-server.test.ts times it), half of them after the handler ran (the
  // change was applied, the answer lost); a few connections are dropped outright.
  const faulty = useSandboxContext({
    tenants: 300,
    faults: { fail_rate: 0.3, retry_after: '0', phase: 'both', drop_rate: 0.03, seed: 20261121 },
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
const server = useHostileServer();
const dirs = useTempDirs();
const recorder = async () => {
  const s = await server();
  s.answer(answers.json(200, { ok: true }));
  const env = { ...dirs(), ...hostileEnv(s) };
  return { s, run: (argv: string[]) => runInProcess(['api', ...argv], env) };
};

describe('svc api: field and header names that are also JavaScript names', () => {
  it('-f/-F __proto__ is sent as given, never dropped nor read as other fields', async () => {
    const { s, run } = await recorder();
    const sent = await run([
      'POST',
      '/_sandbox/x',
      '-f',
      'name=p',
      '-f',
      'constructor=c',
      '-F',
      '__proto__={"idempotency_key":"from-proto"}',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    // JSON.parse keeps a "__proto__" key as the key it is: the body the server read, unchanged.
    expect(JSON.parse(s.seen[0]!.body)).toEqual(
      JSON.parse('{"name":"p","constructor":"c","__proto__":{"idempotency_key":"from-proto"}}'),
    );
    expect(s.seen[0]!.body).not.toContain('"idempotency_key":"from-proto"}"');
    const platform = await run([
      'POST',
      '/v1/roles',
      '-f',
      '__proto__=x',
      '-F',
      'permissions=["exception.read"]',
    ]);
    expect(platform.code, platform.stderr).toBe(0);
    const body = JSON.parse(s.seen[1]!.body);
    expect(Object.keys(body)).toEqual(['__proto__', 'permissions', 'idempotency_key']);
    expect(body.idempotency_key).toMatch(/^svc_/);
    const query = await run(['GET', '/v1/roles', '-f', '__proto__=x', '-H', 'X-Trace: 1']);
    expect(query.code, query.stderr).toBe(0);
    expect(s.seen[2]!.url).toBe('/v1/roles?__proto__=x');
  });

  it.each([
    ['-f', ['-f', '__proto__=x', '-f', 'a=1', '-f', 'password=pw-canary'], undefined],
    ['--input -', ['--input', '-'], '{"__proto__":{"z":1,"client_secret":"pw-canary"},"a":1}'],
  ])(
    'the --debug trace of a body with __proto__ (%s) shows the body sent, secrets masked (review s8)',
    async (_, flags, stdin) => {
      const { s } = await recorder();
      const r = await runInProcess(
        ['--debug', 'api', 'POST', '/v1/x', ...flags],
        { ...dirs(), ...hostileEnv(s) },
        stdin === undefined ? {} : { stdin },
      );
      expect(r.code, r.stderr).toBe(0);
      const traced = /^> (\{.*\})$/m.exec(r.stderr)![1]!;
      const sent = s.seen[0]!.body;
      expect(traced).toBe(sent.replace('"pw-canary"', '"[redacted]"'));
      expect(traced).toContain('"__proto__":');
      expect(r.stderr).not.toContain('pw-canary');
    },
  );

  it('-H __proto__: x is sent as a header named so', async () => {
    const { s, run } = await recorder();
    expect((await run(['/v1/me', '-H', '__proto__: x'])).code).toBe(0);
    const raw = s.seen[0]!.rawHeaders;
    const at = raw.findIndex((name) => name.toLowerCase() === '__proto__');
    expect([at >= 0, raw[at + 1]]).toEqual([true, 'x']);
  });
});

describe('svc api: an idempotency_key the body already has (finding s9 review-b 6)', () => {
  it.each([
    ['-F idempotency_key=12345', ['-F', 'idempotency_key=12345'], 12345],
    ['-F idempotency_key=null', ['-F', 'idempotency_key=null'], null],
    ['-F idempotency_key={"a":1}', ['-F', 'idempotency_key={"a":1}'], { a: 1 }],
  ])(
    '%s is sent as given (the server decides), with no key of svc’s beside it',
    async (_what, field, key) => {
      const { s, run } = await recorder();
      const r = await run(['POST', '/v1/roles', '-f', 'name=rk6', ...field]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(s.seen[0]!.body)).toEqual({ name: 'rk6', idempotency_key: key });
      expect(s.seen[0]!.headers['idempotency-key']).toBeUndefined();
    },
  );

  it('a string key in the body goes in the header too, as before', async () => {
    const { s, run } = await recorder();
    const r = await run(['POST', '/v1/roles', '-f', 'name=rk6', '-f', 'idempotency_key=k-6']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(s.seen[0]!.body)).toEqual({ name: 'rk6', idempotency_key: 'k-6' });
    expect(s.seen[0]!.headers['idempotency-key']).toBe('k-6');
  });
});

describe('svc api in pipelines', () => {
  it('svc api /v1/me is a GET, as with gh', async () => {
    const r = await svc.run(['api', '/v1/me']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'usr_admin' });
    const { s, run } = await recorder();
    expect((await run(['v1/tenants', '-F', 'limit=5'])).code).toBe(0);
    expect([s.seen[0]!.method, s.seen[0]!.url]).toEqual(['GET', '/v1/tenants?limit=5']);
  });

  it.each([
    [['api'], 'error: svc api needs a path, e.g. svc api /v1/me'],
    [['api', 'POST'], 'error: svc api POST needs a path, e.g. svc api POST /v1/me'],
    [
      ['api', '/v1/roles', '--input', '-'],
      'error: --input sends a body: name the method first, e.g. svc api POST /v1/roles --input -',
    ],
    [
      ['api', 'POST', '/v1/roles', '-F', 'permissions=[exception.read]'],
      'error: -F permissions=… is not valid JSON',
    ],
    [
      ['api', 'GET', '/v1/roles', '-F', 'filter={"a":1}'],
      'error: -F filter: an object cannot go in a query string',
    ],
  ])('%j is a usage error (exit 2)', async (argv, message) => {
    const r = await svc.run(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toContain(message);
  });

  it('-F sends typed JSON values (numbers, booleans, null, arrays, objects); -f sends strings', async () => {
    const { s, run } = await recorder();
    const r = await run([
      'POST',
      '/v1/things',
      '-F',
      'n=3',
      '-F',
      'x=-1.5e3',
      '-F',
      'on=true',
      '-F',
      'none=null',
      '-F',
      'list=["a",1]',
      '-F',
      'obj={"k":[true]}',
      '-F',
      'word=plain',
      '-f',
      'text=3',
      '-f',
      'raw=[1]',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { idempotency_key, ...body } = JSON.parse(s.seen[0]!.body);
    expect(body).toEqual({
      n: 3,
      x: -1500,
      on: true,
      none: null,
      list: ['a', 1],
      obj: { k: [true] },
      word: 'plain',
      text: '3',
      raw: '[1]',
    });
    expect(idempotency_key).toMatch(/^svc_/);
  });

  // attack27b F9: gh's rule, said in the help: what is not JSON goes as a string.
  it('-F values that are not JSON numbers (.5, +5, 007) go as strings, as the help says', async () => {
    const { s, run } = await recorder();
    const r = await run(['POST', '/v1/things', '-F', 'a=.5', '-F', 'b=+5', '-F', 'c=007']);
    expect(r.code, r.stderr).toBe(0);
    const { idempotency_key: _, ...body } = JSON.parse(s.seen[0]!.body);
    expect(body).toEqual({ a: '.5', b: '+5', c: '007' });
    const help = await svc.run(['api', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'anything else is sent as a string, as gh api does: .5, +5, 5., 007, 1_000 and 0x10 are not JSON numbers, so -F amount=+5 sends "+5" (write 0.5, 5, 1000)',
    );
  });

  it('--input with a UTF-8 byte order mark is JSON all the same: the POST gets its idempotency key', async () => {
    const body = '\ufeff{"name":"bom-role","permissions":["exception.read"]}';
    const r = await svc.run(['api', 'POST', '/v1/roles', '--input', '-'], { stdin: body });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'bom-role', permissions: ['exception.read'] });
  });

  it('sends an array -F as repeated query parameters on a GET', async () => {
    const { s, run } = await recorder();
    expect((await run(['GET', '/v1/things', '-F', 'status=["a","b"]'])).code).toBe(0);
    expect(s.seen[0]!.url).toBe('/v1/things?status=a&status=b');
  });

  it.each([
    ['/v1/things', true],
    ['/v1/oauth/token', false],
    ['/v1/roles', true],
    ['/v1/oauth/revoke', false],
    // every endpoint that authenticates its client (authenticatesItsClient): the one rule
    ['/v1/oauth/device_authorization', false],
    ['/v1/oauth/device_authorization?x=1', false],
    ['/_sandbox/webhooks/events', false],
    ['/elsewhere', false],
  ])('adds an idempotency key to a POST to %s only if it is a platform POST (%s)', async (path, keyed) => {
    const { s, run } = await recorder();
    expect((await run(['POST', path, '-f', 'a=b'])).code).toBe(0);
    const sent = s.seen[0]!;
    expect('idempotency_key' in JSON.parse(sent.body)).toBe(keyed);
    expect(sent.headers['idempotency-key'] !== undefined).toBe(keyed);
  });

  it.each([
    ['/v1/roles', true],
    ['/v1/oauth/token', false],
    ['/v1/oauth/revoke', false],
    ['/v1/oauth/device_authorization', false],
  ])(
    '--input: a JSON object POSTed to %s gets an idempotency key only on a platform POST (%s)',
    async (path, keyed) => {
      const { s, run } = await recorder();
      const file = join(tempDir('svc-input-'), 'body.json');
      writeFileSync(file, '{"client_id":"c"}');
      expect((await run(['POST', path, '--input', file])).code).toBe(0);
      const sent = s.seen[0]!;
      expect('idempotency_key' in JSON.parse(sent.body)).toBe(keyed);
      expect(sent.headers['idempotency-key'] !== undefined).toBe(keyed);
    },
  );

  it('drives POST /_sandbox/webhooks/events, which refused the added key before', async () => {
    const r = await svc.run([
      'api',
      'POST',
      '/_sandbox/webhooks/events',
      '-f',
      'type=exception.sla.breached',
      '-f',
      `webhook_id=${SEEDED_WEBHOOKS.exceptions}`,
      '-F',
      'count=2',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ count: 2, deliveries: 2 });
  });
});
