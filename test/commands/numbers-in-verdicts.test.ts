/**
 * A verdict or a replayed creation copies the answer's fields into svc's own object
 * (`{...data, outcome}`): that copy lost the numbers' text the answer kept, so an integer beyond
 * 2^53 or a decimal such as 1.10 came out of `--json` changed (fixnum2, session 27's leftover).
 * A proxy in front of the sandbox adds such numbers to the answer of the change, as another
 * server of the API may write them.
 */
import { describe, expect, it } from 'vitest';
import { useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useLiveAdmin } from '../helpers/sandbox.js';

const { sandbox, env, svc } = useLiveAdmin();
const proxy = useReshapingProxy(sandbox);

/** The answers to `method` carry two numbers a double writes otherwise. */
const withOddNumbers = (method: string) =>
  proxy().reshape((answer) => {
    if (answer.method !== method || answer.body === null || typeof answer.body !== 'object') return;
    answer.body = JSON.stringify(answer.body).replace(/}$/, ',"big":9007199254740993,"rate":1.10}');
  });

const viaProxy = (argv: string[]) => svc(argv, { env: { ...env, SVC_BASE_URL: proxy().url } });

/** Each number as the server wrote it, at the top and under the verdict's noun. */
function expectNumbersAsWritten(stdout: string, noun: string) {
  expect(stdout.match(/"big": 9007199254740993[,\n]/g)).toHaveLength(2);
  expect(stdout.match(/"rate": 1\.10[,\n]/g)).toHaveLength(2);
  const value = JSON.parse(stdout) as Record<string, unknown>;
  expect(Object.keys(value[noun] as object)).toContain('big');
}

describe('a verdict keeps the numbers of the answer it copies', () => {
  it('tenants api-keys revoke --json', async () => {
    const made = await svc(
      ['tenants', 'api-keys', 'create', 'acme-treasury', '--kind', 'publishable', '--json'],
      {
        env,
      },
    );
    expect(made.code, made.stderr).toBe(0);
    const id = (JSON.parse(made.stdout) as { id: string }).id;
    withOddNumbers('DELETE');
    const r = await viaProxy(['tenants', 'api-keys', 'revoke', 'acme-treasury', id, '--yes', '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout).outcome).toBe('revoked');
    expectNumbersAsWritten(r.stdout, 'api_key');
  });

  it('roles delete --json', async () => {
    const made = await svc(
      ['roles', 'create', '--name', 'fixnum2-role', '--permission', 'exception.read', '--json'],
      {
        env,
      },
    );
    expect(made.code, made.stderr).toBe(0);
    withOddNumbers('DELETE');
    const r = await viaProxy(['roles', 'delete', 'fixnum2-role', '--yes', '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout).outcome).toBe('deleted');
    expectNumbersAsWritten(r.stdout, 'role');
  });
});

describe('a replayed creation keeps the numbers of the stored answer', () => {
  it('tenants api-keys create --idempotency-key K, run again --json: "replayed": true beside them', async () => {
    withOddNumbers('POST');
    const argv = ['tenants', 'api-keys', 'create', 'acme-treasury', '--kind', 'publishable'];
    const first = await viaProxy([...argv, '--idempotency-key', 'fixnum2-key', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const again = await viaProxy([...argv, '--idempotency-key', 'fixnum2-key', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).replayed).toBe(true);
    expect(again.stdout).toMatch(/"big": 9007199254740993,\n/);
    expect(again.stdout).toMatch(/"rate": 1\.10,\n/);
  });
});
