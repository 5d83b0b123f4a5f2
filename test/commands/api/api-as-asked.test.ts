/**
 * `svc api` sends what the user asked (s9 findings C1, M6, M7, L1): a user's -H header is never
 * replaced by svc's own (Authorization above all: the call runs as the token given, which needs
 * no stored credential, is masked in --debug and still never goes over plain http to another
 * host); an Idempotency-Key header is the operation's key, in the body too; --paginate on an
 * answer that is not a list prints it; a HEAD answer prints no body.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { answers, HOSTILE_TENANT, hostileEnv, useHostileServer } from '../../helpers/hostile.js';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const dirs = useTempDirs();
const server = useHostileServer();
const T1 = HOSTILE_TENANT;
const T2 = '00000000-0000-4000-8000-000000000002';

describe('svc api -H Authorization (C1)', () => {
  it("runs as the token given, not as the profile's credential", async () => {
    const viewer = svc.sandbox().issueToken('usr_viewer').token;
    const me = await svc.run(['api', '/v1/me', '-H', `Authorization: Bearer ${viewer}`]);
    expect(me.code, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout).id).toBe('usr_viewer');

    const role = await svc.run([
      'api',
      'POST',
      '/v1/roles',
      '-f',
      'name=probe',
      '-F',
      'permissions=["account.read"]',
    ]);
    expect(role.code, role.stderr).toBe(0);
    const id = JSON.parse(role.stdout).id as string;
    const denied = await svc.run([
      'api',
      'DELETE',
      `/v1/roles/${id}`,
      '-H',
      `authorization: Bearer ${viewer}`,
      '--yes',
    ]);
    expect(denied.code).toBe(4);
    expect((await svc.run(['api', `/v1/roles/${id}`])).code).toBe(0);
  });

  it('needs no stored credential, and is masked in --debug', async () => {
    const viewer = svc.sandbox().issueToken('usr_viewer').token;
    const r = await svc.run(['--debug', 'api', '/v1/me', '-H', `Authorization: Bearer ${viewer}`], {
      env: { SVC_TOKEN: undefined },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe('usr_viewer');
    expect(r.stderr.match(/^> authorization: .*$/gm)).toEqual(['> authorization: Bearer [redacted]']);
    expect(r.stderr).not.toContain(viewer);
  });

  it('a rejected header is named as the one given, not as the stored credential (exit 3)', async () => {
    const r = await svc.run(['api', '/v1/me', '-H', 'Authorization: Bearer not-a-token']);
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n')[0]).toMatch(/^error: the Authorization header given was rejected: /);
    expect(r.stderr).not.toContain('not-a-token');
  });

  it('never goes over plain http to a host that is not loopback', async () => {
    const r = await runInProcess(['api', '/v1/me', '-H', 'Authorization: Bearer tok-canary'], {
      ...dirs(),
      SVC_BASE_URL: 'http://api.svc.example',
      SVC_TENANT: T1,
    });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toContain('error: refusing to send a credential over plain HTTP to api.svc.example');
  });

  it('a user -H User-Agent, Accept or X-Tenant-Id is sent as given', async () => {
    const s = await server();
    s.answer(answers.json(200, { ok: true }));
    const r = await runInProcess(
      [
        'api',
        '/v1/things',
        '-H',
        'User-Agent: probe/1',
        '-H',
        'Accept: text/plain',
        '-H',
        `X-Tenant-Id: ${T2}`,
      ],
      { ...dirs(), ...hostileEnv(s) },
    );
    expect(r.code, r.stderr).toBe(0);
    const { headers } = s.seen[0]!;
    expect([headers['user-agent'], headers.accept, headers['x-tenant-id']]).toEqual([
      'probe/1',
      'text/plain',
      T2,
    ]);
  });
});

describe('svc api -H Idempotency-Key (M6)', () => {
  it('is the key of a platform POST: in the body too, so the server accepts it and a repeat is recognised', async () => {
    const argv = ['api', 'POST', '/v1/accounts', '-H', 'Idempotency-Key: my-key-1', '-f', 'name=a'];
    const first = await svc.run(argv);
    expect([first.code, first.stderr]).toEqual([0, '']);
    const again = await svc.run(argv);
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(JSON.parse(again.stdout).id).toBe(JSON.parse(first.stdout).id);
  });

  it('goes in the body of a platform POST, and leaves other bodies alone', async () => {
    const s = await server();
    s.answer(answers.json(200, { ok: true }));
    const env = { ...dirs(), ...hostileEnv(s) };
    const run = (argv: string[]) => runInProcess(['api', ...argv, '-H', 'Idempotency-Key: K'], env);
    expect((await run(['POST', '/v1/things', '-f', 'a=b'])).code).toBe(0);
    expect((await run(['POST', '/v1/things'])).code).toBe(0);
    expect((await run(['POST', '/_sandbox/x', '-f', 'a=b'])).code).toBe(0);
    expect(s.seen.map((r) => [r.headers['idempotency-key'], JSON.parse(r.body)])).toEqual([
      ['K', { a: 'b', idempotency_key: 'K' }],
      ['K', { idempotency_key: 'K' }],
      ['K', { a: 'b' }],
    ]);
  });
});

describe('svc api --paginate on an answer that is not a list (M7)', () => {
  it('prints the object, as without --paginate', async () => {
    const plain = await svc.run(['api', '/v1/me']);
    const r = await svc.run(['api', '/v1/me', '--paginate']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(plain.stdout);
  });

  it('still prints every item of every page of a list', async () => {
    const r = await svc.run(['api', '/v1/roles', '-F', 'limit=2', '--paginate', '--ndjson']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const ids = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    const all = await svc.run(['roles', 'ls', '--json']);
    expect(ids).toEqual(JSON.parse(all.stdout).map((role: { id: string }) => role.id));
    expect(ids.length).toBeGreaterThan(2);
  });
});

describe('svc api HEAD (L1)', () => {
  it('prints no body for an error answer', async () => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['api', 'HEAD', '/v1/nope']);
    expect([r.code, r.stdout]).toEqual([5, '']);
    expect(r.stderr).toMatch(/^error: /);
    expect(await requestCount(svc.sandbox())).toBe(before + 1);
  });
});

describe('svc api -H, one header once (s11 M5)', () => {
  it.each([
    [['X-Tenant-Id: A', 'x-tenant-id: B'], 'X-Tenant-Id'],
    [['Authorization: Bearer a', 'Authorization: Bearer a'], 'Authorization'],
    [['Accept: text/plain', 'ACCEPT: */*'], 'Accept'],
  ])('refuses %j (exit 2), sending nothing, rather than dropping one', async (given, name) => {
    const s = await server();
    s.answer(answers.json(200, { ok: true }));
    const r = await runInProcess(['api', '/v1/things', ...given.flatMap((h) => ['-H', h])], {
      ...dirs(),
      ...hostileEnv(s),
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: -H ${name} is given twice; give it once (svc sends each header once)\n`,
    ]);
    expect(s.seen).toEqual([]);
  });
});
