import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../../src/sandbox/delivery/events.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { answers, useHostileServer } from '../../helpers/hostile.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// svc api in pipelines (issue 13): GET assumed, -F typed JSON, idempotency keys only on platform POSTs.
const svc = useSandboxContext();
const server = useHostileServer();
const dirs = useTempDirs();
const recorder = async () => {
  const s = await server();
  s.answer(answers.json(200, { ok: true }));
  const env = {
    ...dirs(),
    SVC_BASE_URL: s.url,
    SVC_TOKEN: 'test-token',
    SVC_TENANT: '00000000-0000-4000-8000-000000000001',
    NO_COLOR: '1',
  };
  return { s, run: (argv: string[]) => runInProcess(['api', ...argv], env) };
};

describe('svc api', () => {
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

  it('sends an array -F as repeated query parameters on a GET', async () => {
    const { s, run } = await recorder();
    expect((await run(['GET', '/v1/things', '-F', 'status=["a","b"]'])).code).toBe(0);
    expect(s.seen[0]!.url).toBe('/v1/things?status=a&status=b');
  });

  it.each([
    ['/v1/things', true],
    ['/v1/oauth/token', false],
    ['/v1/oauth/revoke', false],
    ['/_sandbox/webhooks/events', false],
    ['/elsewhere', false],
  ])('adds an idempotency key to a POST to %s only if it is a platform POST (%s)', async (path, keyed) => {
    const { s, run } = await recorder();
    expect((await run(['POST', path, '-f', 'a=b'])).code).toBe(0);
    const sent = s.seen[0]!;
    expect('idempotency_key' in JSON.parse(sent.body)).toBe(keyed);
    expect(sent.headers['idempotency-key'] !== undefined).toBe(keyed);
  });

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
