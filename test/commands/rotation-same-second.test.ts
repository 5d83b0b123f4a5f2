/**
 * A rotation's idempotency key run again after another admin rotated the same secret in the same
 * second (attack28b F2): the platform's rotation times are whole seconds, so they cannot tell the
 * two rotations apart. Other evidence decides — an OAuth client's secret asked of the token
 * endpoint, a webhook's secrets rotated out in that second — and the stored answer's secret is
 * not called current: it is written with a warning (a read that lags shows another secret too,
 * review29b H1). The sandbox's clock
 * stands still, so every rotation here is in one second whatever the machine's load.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as } from '../helpers/ascode.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { ACME, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const frozen = Math.floor(Date.now() / 1000) * 1000 + 500;
const svc = useSandboxContext({ baseClock: () => frozen });
const files = useTempDir('svc-rotation-same-second-');
/**
 * Another server: its OAuth clients carry no secret_last4 nor secret_sha256_prefix, its webhooks no previous_secrets (as the
 * reference); its Date and its replay marker are the sandbox's.
 */
const plain = useLossyProxy(svc.sandbox, {
  lose: () => false,
  reshape: (_method, path, status, text, headers) => {
    if (!/^\/v1\/(oauth\/clients|webhooks)\//.test(path) || !text.startsWith('{')) return undefined;
    const {
      secret_last4: _last4,
      secret_sha256_prefix: _prefix,
      previous_secrets: _previous,
      ...body
    } = JSON.parse(text);
    const kept = Object.entries(headers).filter(
      (h): h is [string, string] =>
        ['date', 'idempotent-replayed'].includes(h[0].toLowerCase()) && typeof h[1] === 'string',
    );
    return { status, body: JSON.stringify(body), headers: Object.fromEntries(kept) };
  },
});
afterAll(() => rmSync(files, { recursive: true, force: true }));
/**
 * The same server, marking every answer to a keyed change: `Idempotent-Replayed: false` on a fresh
 * one (review29b M4: "one the server marks as no stored answer").
 */
const marksBoth = useLossyProxy(svc.sandbox, {
  lose: () => false,
  reshape: (method, path, status, text, headers) => {
    if (!/^\/v1\/(oauth\/clients|webhooks)\//.test(path) || !text.startsWith('{')) return undefined;
    const {
      secret_last4: _last4,
      secret_sha256_prefix: _prefix,
      previous_secrets: _previous,
      ...body
    } = JSON.parse(text);
    const kept = Object.entries(headers).filter(
      (h): h is [string, string] =>
        ['date', 'idempotent-replayed'].includes(h[0].toLowerCase()) && typeof h[1] === 'string',
    );
    const marks = method === 'POST' && !kept.some((h) => h[0].toLowerCase() === 'idempotent-replayed');
    return {
      status,
      body: JSON.stringify(body),
      headers: { ...Object.fromEntries(kept), ...(marks ? { 'idempotent-replayed': 'false' } : {}) },
    };
  },
});
/** A server whose OAuth clients carry secret_last4 but not the sandbox's longer secret_sha256_prefix. */
const last4Only = useLossyProxy(svc.sandbox, {
  lose: () => false,
  reshape: (_method, path, status, text, headers) => {
    if (!/^\/v1\/oauth\/clients\//.test(path) || !text.startsWith('{')) return undefined;
    const { secret_sha256_prefix: _prefix, ...body } = JSON.parse(text);
    const kept = Object.entries(headers).filter(
      (h): h is [string, string] =>
        ['date', 'idempotent-replayed'].includes(h[0].toLowerCase()) && typeof h[1] === 'string',
    );
    return { status, body: JSON.stringify(body), headers: Object.fromEntries(kept) };
  },
});
const at = { clock: { now: () => frozen } };
let runs = 0;

async function made(noun: 'oauth' | 'webhook', grants: string[] = []): Promise<string> {
  const r =
    noun === 'oauth'
      ? await svc.run(
          [
            ...['oauth', 'create', '--name', `same-${++runs}`, '--redirect-uri', 'https://app.example/cb'],
            ...['--scope', 'read:reconciliations', ...grants, '--show-secret', '--json'],
          ],
          at,
        )
      : await svc.run(
          [
            ...[
              'webhooks',
              'create',
              '--url',
              `https://h.example/same-${++runs}`,
              '--event-type',
              'webhook.test',
            ],
            ...['--show-secret', '--json'],
          ],
          at,
        );
  expect(r.code, r.stderr).toBe(0);
  const body = JSON.parse(r.stdout);
  return body.client_id ?? body.id;
}

const CASES = [
  ['oauth', 'OAuth client', (id: string) => `/v1/oauth/clients/${id}/rotate-secret`],
  ['webhook', 'webhook', (id: string) => `/v1/webhooks/${id}/rotate-secret`],
] as const;

describe('a rotation key run again, another rotation in the same second', () => {
  // review29b H1: evidence of another secret is no proof that the answer's was replaced (a read
  // that lags shows an older one), so the secret is written with the doubt, never withheld.
  it.each(CASES)(
    '%s: the stored secret is written with a warning, in --json too',
    async (noun, what, path) => {
      const id = await made(noun);
      const group = noun === 'oauth' ? 'oauth' : 'webhooks';
      const first = join(files, `first-${++runs}.secret`);
      const key = `same-second-${runs}`;
      const rotate = (file: string, ...more: string[]) =>
        svc.run(
          [group, 'rotate-secret', id, '--yes', '--secret-file', file, '--idempotency-key', key, ...more],
          at,
        );
      const r = await rotate(first);
      expect(r.code, r.stderr).toBe(0);
      // Another admin rotates it, in the same second.
      await as(svc.sandbox(), ACME, 'POST', path(id), {});
      const again = join(files, `again-${++runs}.secret`);
      const late = await rotate(again, '--json');
      expect(late.code, late.stderr).toBe(0);
      expect(JSON.parse(late.stdout)).toMatchObject({ replayed: true, secret_may_be_replaced: true });
      const second = new Date(frozen).toISOString().replace(/\.\d+Z$/, 'Z');
      const command = `svc ${group} rotate-secret ${id} --secret-file ${again}.new${noun === 'oauth' ? ' --yes' : ''}`;
      expect(late.stderr).toBe(
        `warning: ${what} ${id}'s secret was rotated again in the same second as this rotation (${second}), by the server's read, whose fingerprint is not this secret's: ` +
          'this secret may already be replaced (svc cannot tell which rotation came last), so it is given with this warning; ' +
          `if it is refused, get a new one with: ${command}\n`,
      );
      expect(readFileSync(again, 'utf8')).toBe(readFileSync(first, 'utf8'));
    },
  );

  it.each(CASES)('%s: with no other rotation, the stored secret is the current one', async (noun, what) => {
    const id = await made(noun);
    const group = noun === 'oauth' ? 'oauth' : 'webhooks';
    const key = `same-second-alone-${++runs}`;
    const files2 = [join(files, `a-${runs}.secret`), join(files, `b-${runs}.secret`)];
    const rotate = (file: string) =>
      svc.run([group, 'rotate-secret', id, '--yes', '--secret-file', file, '--idempotency-key', key], at);
    expect((await rotate(files2[0]!)).code).toBe(0);
    const again = await rotate(files2[1]!);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.split('\n')[0]).toBe(
      `${what} ${id}'s secret was already rotated by an earlier run with this idempotency key: this is the platform's stored answer, and its secret is still the current one`,
    );
    expect(readFileSync(files2[1]!, 'utf8')).toBe(readFileSync(files2[0]!, 'utf8'));
  });
});

describe('a server with secret_last4 but no secret_sha256_prefix (brief s29 fixrot 4)', () => {
  it('oauth: another rotation in the same second is still told by last4: written with the warning', async () => {
    const id = await made('oauth');
    const env = { SVC_BASE_URL: last4Only().url };
    const key = `last4-only-${++runs}`;
    const rotate = (file: string) =>
      svc.run(['oauth', 'rotate-secret', id, '--yes', '--secret-file', file, '--idempotency-key', key], {
        ...at,
        env,
      });
    expect((await rotate(join(files, `l4-a-${runs}.secret`))).code).toBe(0);
    await as(svc.sandbox(), ACME, 'POST', `/v1/oauth/clients/${id}/rotate-secret`, {});
    const again = join(files, `l4-b-${runs}.secret`);
    const late = await rotate(again);
    expect(late.code, late.stderr).toBe(0);
    expect(late.stderr.split('\n').filter((l) => l.startsWith('warning:'))[0]).toContain(
      'was rotated again in the same second as this rotation',
    );
    expect(existsSync(again)).toBe(true);
  });
});

describe('a rotation key used for the first time, every rotation in one second', () => {
  it('an OAuth client registered only for authorization_code: the secret is written, exit 0', async () => {
    const id = await made('oauth', ['--grant-type', 'authorization_code']);
    const file = join(files, `code-only-${++runs}.secret`);
    const r = await svc.run(
      ['oauth', 'rotate-secret', id, '--yes', '--secret-file', file, '--idempotency-key', `fresh-${runs}`],
      at,
    );
    expect([r.code, r.stderr.includes('warning:')], r.stderr).toEqual([0, false]);
    const now = await svc.run(['oauth', 'get', id, '--json'], at);
    expect(readFileSync(file, 'utf8').trim().slice(-4)).toBe(JSON.parse(now.stdout).secret_last4);
  });

  // review28d M2: a rotation this very request made (its time not before the attempt's start, on
  // the platform's clock) carries no more doubt than one without a key: no warning, whatever the
  // server gives (the reference gives neither secret_last4 nor previous_secrets).
  it.each(CASES)('%s: a server with no evidence of the secret writes it, no warning', async (noun) => {
    const id = await made(noun);
    const group = noun === 'oauth' ? 'oauth' : 'webhooks';
    const file = join(files, `plain-${++runs}.secret`);
    const r = await svc.run(
      [group, 'rotate-secret', id, '--yes', '--secret-file', file, '--idempotency-key', `plain-${runs}`],
      { ...at, env: { SVC_BASE_URL: plain().url } },
    );
    expect([r.code, r.stderr.includes('warning:')], r.stderr).toEqual([0, false]);
    expect(existsSync(file)).toBe(true);
  });
});

describe('a rotation key run again on a server with no evidence of the secret', () => {
  it.each(CASES)(
    '%s: the stored answer is written with a one-line warning, in --json too, and its command runs',
    async (noun, what) => {
      const id = await made(noun);
      const group = noun === 'oauth' ? 'oauth' : 'webhooks';
      const key = `plain-again-${++runs}`;
      const [first, file] = [join(files, `plain-a-${runs}.secret`), join(files, `plain-b-${runs}.secret`)];
      const env = { SVC_BASE_URL: plain().url };
      const rotate = (to: string, ...more: string[]) =>
        svc.run(
          [group, 'rotate-secret', id, '--yes', '--secret-file', to, '--idempotency-key', key, ...more],
          {
            ...at,
            env,
          },
        );
      expect((await rotate(first)).code).toBe(0);
      const r = await rotate(file, '--json');
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ secret_may_be_replaced: true });
      const second = new Date(frozen).toISOString().replace(/\.\d+Z$/, 'Z');
      const again = `svc ${group} rotate-secret ${id} --secret-file ${file}.new${noun === 'oauth' ? ' --yes' : ''}`;
      expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
        `warning: ${what} ${id}'s secret was rotated at ${second}, and svc cannot rule out another rotation in that same second ` +
          '(the platform gives whole seconds, and nothing that tells its secrets apart): ' +
          `if the secret is refused, get a new one with: ${again}`,
      ]);
      // The command it names works: a new file (svc never overwrites the one it just wrote).
      const next = await svc.run(again.split(' ').slice(1), { ...at, env });
      expect(next.code, next.stderr).toBe(0);
      expect(existsSync(`${file}.new`)).toBe(true);
    },
  );
});

// review29b M4: a second keyed rotation in the second of the first, on a server with no evidence of
// the secret. One that marks a fresh answer as no stored one (`Idempotent-Replayed: false`) makes it
// the command's own: no warning, as the help, README and RELIABILITY say. One that marks only its
// stored answers gives a fresh one no mark, which svc cannot tell from an unmarked replay: the
// tie's warning, as documented.
describe('a second keyed rotation in the same second, a server with no evidence of the secret', () => {
  it.each(CASES)('%s: marked fresh, no warning; marked only on replays, the warning', async (noun) => {
    const id = await made(noun);
    const group = noun === 'oauth' ? 'oauth' : 'webhooks';
    const rotate = (url: string, ...more: string[]) =>
      svc.run([group, 'rotate-secret', id, '--yes', '--show-secret', '--json', ...more], {
        ...at,
        env: { SVC_BASE_URL: url },
      });
    const first = await rotate(marksBoth().url, '--idempotency-key', `both-a-${++runs}`);
    expect([first.code, first.stderr], first.stderr).toEqual([0, '']);
    const second = await rotate(marksBoth().url, '--idempotency-key', `both-b-${runs}`);
    expect([second.code, second.stderr], second.stderr).toEqual([0, '']);
    expect(JSON.parse(second.stdout).secret_may_be_replaced).toBeUndefined();
    const keyless = await rotate(marksBoth().url);
    expect([keyless.code, keyless.stderr], keyless.stderr).toEqual([0, '']);
    const onlyReplays = await rotate(plain().url, '--idempotency-key', `both-c-${runs}`);
    expect(onlyReplays.code, onlyReplays.stderr).toBe(0);
    expect(JSON.parse(onlyReplays.stdout)).toMatchObject({ secret_may_be_replaced: true });
    expect(onlyReplays.stderr).toContain('cannot rule out another rotation in that same second');
  });
});
