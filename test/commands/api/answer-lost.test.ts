/**
 * `svc api POST …` whose stdout fails once the platform made the change (review16 R12): its
 * answer may be the only copy of a one-time secret (a client's), so svc says so and names the
 * idempotency key the request carried, with the command that gets the same answer back: the
 * re-run under that key makes no second client and answers with the same secret.
 */
import { describe, expect, it } from 'vitest';
import { shellWord } from '../../../src/system/shell-words.js';
import { ACME, call, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

const clientsNamed = async (name: string) => {
  const sandbox = svc.sandbox();
  const list = (await call(sandbox, 'GET', '/v1/oauth/clients', { token: sandbox.adminToken, tenant: ACME }))
    .body as { items: { name: string; client_id: string }[] };
  return list.items.filter((c) => c.name === name);
};

const post = (name: string) => [
  ...['api', 'POST', '/v1/oauth/clients', '-f', `name=${name}`],
  ...['-F', 'redirect_uris=["https://a.example/cb"]', '-F', 'scopes=["read:reconciliations"]'],
];

describe('svc api POST whose output is lost after the change', () => {
  it('a full disk: names the one-time secret and the key svc added; the re-run with it gets the same answer', async () => {
    const r = await svc.run([...post('api-lost'), '--debug'], { stdoutFails: 'ENOSPC' });
    const key = /idempotency-key: (svc_[0-9a-f-]{36})/.exec(r.stderr)?.[1];
    const [made] = await clientsNamed('api-lost');
    const line = r.stderr.split('\n').find((l) => l.startsWith('error: '));
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(line).toMatch(
      /^error: cannot write to stdout \(ENOSPC\), but the change was made: POST \/v1\/oauth\/clients answered 201 \(request \S+\); /,
    );
    expect(line!.replace(/^.*answered 201 \(request \S+\); /, '')).toBe(
      "its output was the only copy of POST /v1/oauth/clients's answer, with any one-time secret in it (a client secret, a signing secret, a key), which is lost now; " +
        `run the same command with -H 'Idempotency-Key: ${key}' added (the key it was sent with) within 24 hours: the platform answers with the same answer, secret included, and makes nothing new`,
    );

    const again = await svc.run([...post('api-lost'), '-H', `Idempotency-Key: ${key}`]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).client_id).toBe(made!.client_id);
    expect(JSON.parse(again.stdout).client_secret).toMatch(/\S{8}/);
    expect(await clientsNamed('api-lost')).toHaveLength(1);
  });

  it('the key given with -H: the same command again', async () => {
    const key = `api-own-${Date.now()}`;
    const r = await svc.run([...post('api-own'), '-H', `Idempotency-Key: ${key}`], { stdoutFails: 'EPIPE' });
    expect([r.code, r.stdout]).toEqual([141, '']);
    expect(r.stderr).toContain(
      `; run the same command again (its idempotency key ${key}) within 24 hours: the platform answers with the same answer, secret included, and makes nothing new\n`,
    );
  });

  // review16e E3: a key in the body was told to be "added" with -H, pasted unquoted.
  it.each([
    ['-f', 'api-body'],
    ['-f', "api-body it's $HOME"],
  ])('the key given in the body (%s idempotency_key=%s): the same command again', async (flag, base) => {
    const key = `${base}-${Date.now()}`;
    const r = await svc.run([...post('api-body'), flag, `idempotency_key=${key}`], { stdoutFails: 'EPIPE' });
    expect([r.code, r.stdout]).toEqual([141, '']);
    expect(r.stderr).toContain(
      `; run the same command again (its idempotency key ${shellWord(key)}) within 24 hours: the platform answers with the same answer, secret included, and makes nothing new\n`,
    );
  });
});
