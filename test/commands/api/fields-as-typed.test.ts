/**
 * `svc api` sends what the user typed, or refuses it (review s13 api13, findings 3, 6, 7, 9, 12,
 * 14, 15): a field given twice kept the last without a word, a path's own query parameter was
 * replaced by a field, -F numbers in a query string were re-encoded (100.50 → 100.5), -0 lost its
 * sign, fields under a form Content-Type went as JSON, -i was ignored with --paginate, an item
 * nested 6,000 deep crashed --paginate as "a bug in svc", and a 413/415 exited 1.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { answers, hostileEnv, useHostileServer } from '../../helpers/hostile.js';

const hostile = useHostileServer();
const dirs = useTempDirs();

async function server(answer = answers.json(200, { ok: true })) {
  const s = await hostile();
  s.answer(answer);
  return { s, env: { ...dirs(), ...hostileEnv(s) } };
}

describe('a field given twice', () => {
  it.each([
    [['-f', 'amount=10.00', '-f', 'amount=1000.00'], 'error: amount is given twice (-f, -f); keep one\n'],
    [['-f', 'amount=10.00', '-F', 'amount=1000'], 'error: amount is given twice (-f, -F); keep one\n'],
  ])('in a body is refused, nothing sent: %j', async (fields, message) => {
    const { s, env } = await server();
    const r = await runInProcess(['api', 'POST', '/v1/reconciliations', '-f', 'name=dup', ...fields], env);
    expect([r.code, r.stderr]).toEqual([2, message]);
    expect(s.seen).toEqual([]);
  });

  it('in a query string is sent twice', async () => {
    const { s, env } = await server();
    const r = await runInProcess(['api', 'GET', '/v1/tenants', '-f', 'role=x', '-f', 'role=y'], env);
    expect(r.code).toBe(0);
    expect(s.seen.map((x) => x.url)).toEqual(['/v1/tenants?role=x&role=y']);
  });

  it("that the path's query string has is refused, not dropped", async () => {
    const { s, env } = await server();
    const r = await runInProcess(['api', '/v1/tenants?limit=2', '-F', 'limit=5'], env);
    expect([r.code, r.stderr]).toEqual([2, 'error: limit is given twice (in the path and -F); keep one\n']);
    expect(s.seen).toEqual([]);
  });
});

it('-F numbers in a query string are sent as typed', async () => {
  const { s, env } = await server();
  const argv = ['api', 'GET', '/v1/reconciliations', '-F', 'amount=100.50', '-F', 'ref=1e3', '-F', 'z=-0'];
  const r = await runInProcess([...argv, '-F', 'flag=true', '-F', 'ids=[1.50,2e1,"x"]'], env);
  expect(r.code).toBe(0);
  expect(s.seen.map((x) => x.url)).toEqual([
    '/v1/reconciliations?amount=100.50&ref=1e3&z=-0&flag=true&ids=1.50&ids=2e1&ids=x',
  ]);
});

describe('a negative zero in a body is sent as typed, never as 0 (attack27b F3)', () => {
  it.each([
    [
      ['api', 'POST', '/v1/reconciliations', '-f', 'name=n', '-F', 'amount=-0'],
      '{"name":"n","amount":-0,',
      '',
    ],
    [
      ['records', 'create', 'reconciliations', '--data', '{"name":"a","amount":-0.0}'],
      '{"name":"a","amount":-0.0,',
      '✓ created reconciliations record rec_1 in 00000000-0000-4000-8000-000000000001\n',
    ],
  ])('%j: exit 0, the body exactly', async (argv, sent, said) => {
    // review27b L4: the exit code and the whole body, so a warning or a refusal after sending shows.
    const { s, env } = await server(answers.json(201, { id: 'rec_1', name: 'n', amount: 0 }));
    const r = await runInProcess(argv, env);
    expect([r.code, r.stderr], r.stderr).toEqual([0, said]);
    const posts = s.seen.filter((x) => x.method === 'POST').map((x) => x.body);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.replace(/"idempotency_key":"svc_[0-9a-f-]{36}"}$/, '')).toBe(sent);
  });
});

it('fields with a Content-Type that is not JSON are refused before sending', async () => {
  const { s, env } = await server();
  const r = await runInProcess(
    [
      'api',
      'POST',
      '/v1/oauth/token',
      '-H',
      'Content-Type: application/x-www-form-urlencoded',
      '-f',
      'grant_type=refresh_token',
    ],
    env,
  );
  expect([r.code, r.stderr]).toEqual([
    2,
    "error: -f/-F fields are sent as a JSON body, but -H gives Content-Type application/x-www-form-urlencoded; for a body of another type, put it in a file and send it with --input FILE -H 'Content-Type: application/x-www-form-urlencoded'\n",
  ]);
  expect(s.seen).toEqual([]);
});

it('-i with --paginate is refused', async () => {
  const { s, env } = await server();
  const r = await runInProcess(['api', '/v1/tenants', '-i', '--paginate'], env);
  expect([r.code, r.stderr]).toEqual([
    2,
    'error: -i/--include shows one answer; --paginate prints the items of every page: use one\n',
  ]);
  expect(s.seen).toEqual([]);
});

it('--paginate over an item nested 6,000 deep names the answer, not a bug in svc', async () => {
  const deep = `{"items":[${'['.repeat(6000)}${']'.repeat(6000)}],"next_cursor":null}`;
  const { env } = await server(answers.raw(200, deep, 'application/json'));
  const r = await runInProcess(['api', '/v1/deeplist', '--paginate'], env);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(
    /^error: the server answered GET \/v1\/deeplist with an item nested too deep for svc to print as a list item; `svc api \/v1\/deeplist` without --paginate prints each page as it came\n$/,
  );
});

it.each([413, 414, 415])('a %i answer (the input refused) exits 2', async (status) => {
  const { env } = await server(
    answers.json(status, { error: { code: 'refused', message: 'the server refuses this body' } }),
  );
  const r = await runInProcess(['api', 'POST', '/v2/x', '-f', 'a=1'], env);
  expect(r.code).toBe(2);
});

it('-i with --json or --ndjson is refused before anything is sent (s15 pipes15 F4: the head made the output not JSON)', async () => {
  for (const mode of ['--json', '--ndjson']) {
    const { s, env } = await server();
    const r = await runInProcess(['api', '/v1/me', '-i', mode], env);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'usage',
      message: `-i/--include prints the status line and headers as text, which ${mode} output cannot hold: use one`,
      hint: 'the body alone is JSON already; --debug shows the status and headers on stderr',
    });
    expect(s.seen).toEqual([]);
  }
});
