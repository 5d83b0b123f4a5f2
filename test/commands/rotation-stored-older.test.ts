/**
 * A rotation key run again, 30 s later or in the same second, on a server that marks no stored
 * answer and gives no evidence of the secret (no `Idempotent-Replayed`, no secret_last4 nor
 * secret_sha256_prefix, no
 * previous_secrets; its Date kept): the answer's rotation is no later than the one svc's read just
 * before the request showed, so it is not taken as this request's own (review28e M2; brief s29
 * fixrot 3: it was judged by its time against the command's start, which the same second could
 * not tell): the secret is written with the same-second warning, and `--json` says
 * `secret_may_be_replaced`. The clock is moved by the test, never by time passing.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

let now = Math.floor(Date.now() / 1000) * 1000 + 500;
const svc = useSandboxContext({ baseClock: () => now });
const files = useTempDir('svc-rotation-stored-older-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
/** A server that says nothing of a stored answer nor of the secret; its Date is the sandbox's. */
const unmarked = useLossyProxy(svc.sandbox, {
  lose: () => false,
  reshape: (_method, path, status, text, headers) => {
    if (!/^\/v1\/(oauth\/clients|webhooks)\//.test(path) || !text.startsWith('{')) return undefined;
    const {
      secret_last4: _last4,
      secret_sha256_prefix: _prefix,
      previous_secrets: _previous,
      ...body
    } = JSON.parse(text);
    const date = Object.entries(headers).filter(
      (h): h is [string, string] => h[0].toLowerCase() === 'date' && typeof h[1] === 'string',
    );
    return { status, body: JSON.stringify(body), headers: Object.fromEntries(date) };
  },
});
const at = () => ({ clock: { now: () => now }, env: { SVC_BASE_URL: unmarked().url } });
let runs = 0;

async function made(noun: 'oauth' | 'webhook'): Promise<string> {
  const argv =
    noun === 'oauth'
      ? [
          'oauth',
          'create',
          '--name',
          `older-${++runs}`,
          '--redirect-uri',
          'https://app.example/cb',
          '--scope',
          'read:reconciliations',
        ]
      : ['webhooks', 'create', '--url', `https://h.example/older-${++runs}`, '--event-type', 'webhook.test'];
  const r = await svc.run([...argv, '--show-secret', '--json'], { clock: { now: () => now } });
  expect(r.code, r.stderr).toBe(0);
  const body = JSON.parse(r.stdout);
  return body.client_id ?? body.id;
}

describe('a rotation key run again 30 s later, the stored answer unmarked', () => {
  it.each([
    ['oauth', 'OAuth client'],
    ['webhook', 'webhook'],
  ] as const)(
    '%s: the older rotation is not this request’s own: written with the warning',
    async (noun, what) => {
      const id = await made(noun);
      const group = noun === 'oauth' ? 'oauth' : 'webhooks';
      const key = `older-${++runs}`;
      const [first, file] = [join(files, `a-${runs}.secret`), join(files, `b-${runs}.secret`)];
      const rotate = (to: string, ...more: string[]) =>
        svc.run(
          [group, 'rotate-secret', id, '--yes', '--secret-file', to, '--idempotency-key', key, ...more],
          at(),
        );
      const r1 = await rotate(first);
      expect([r1.code, r1.stderr.includes('warning:')], r1.stderr).toEqual([0, false]);
      const second = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
      now += 30_000;
      const r = await rotate(file, '--json');
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ secret_may_be_replaced: true });
      const again = `svc ${group} rotate-secret ${id} --secret-file ${file}.new${noun === 'oauth' ? ' --yes' : ''}`;
      expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
        `warning: ${what} ${id}'s secret was rotated at ${second}, and svc cannot rule out another rotation in that same second ` +
          '(the platform gives whole seconds, and nothing that tells its secrets apart): ' +
          `if the secret is refused, get a new one with: ${again}`,
      ]);
      expect(readFileSync(file, 'utf8')).toBe(readFileSync(first, 'utf8'));
    },
  );
});

// brief s29 fixrot 3: the same unmarked server, the key run again in the very second of the first
// run's rotation (the clock not moved): svc cannot tell the stored answer from a rotation of its
// own by the time, and it was taken as its own, with no warning. Its read of the object before the
// request shows that rotation already made: the same warning as any tie. A first use of a key
// (r1 above and here) reads no rotation yet, and stays free of it.
describe('a rotation key run again in the same second, the stored answer unmarked', () => {
  it.each([
    ['oauth', 'OAuth client'],
    ['webhook', 'webhook'],
  ] as const)('%s: not taken as this request’s own: written with the warning', async (noun, what) => {
    const id = await made(noun);
    const group = noun === 'oauth' ? 'oauth' : 'webhooks';
    const key = `same-${++runs}`;
    const [first, file] = [join(files, `c-${runs}.secret`), join(files, `d-${runs}.secret`)];
    const rotate = (to: string, ...more: string[]) =>
      svc.run(
        [group, 'rotate-secret', id, '--yes', '--secret-file', to, '--idempotency-key', key, ...more],
        at(),
      );
    const r1 = await rotate(first);
    expect([r1.code, r1.stderr.includes('warning:')], r1.stderr).toEqual([0, false]);
    const r = await rotate(file, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ secret_may_be_replaced: true });
    const second = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
    const again = `svc ${group} rotate-secret ${id} --secret-file ${file}.new${noun === 'oauth' ? ' --yes' : ''}`;
    expect(r.stderr).toBe(
      `warning: ${what} ${id}'s secret was rotated at ${second}, and svc cannot rule out another rotation in that same second ` +
        '(the platform gives whole seconds, and nothing that tells its secrets apart): ' +
        `if the secret is refused, get a new one with: ${again}\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(first, 'utf8'));
  });
});
