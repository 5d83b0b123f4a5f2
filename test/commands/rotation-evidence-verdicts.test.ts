/**
 * Every verdict of storedSecretNow on a keyed rotation's answer, both rotate-secret verbs
 * (review29b H1, M1): 'current' (no warning), 'rotated-since' (a later rotation time: exit 6,
 * nothing written), 'replaced' (another admin's rotation in the same second, between svc's POST and
 * its read: written, with the doubt in a warning and in --json), 'lagging' (a read that still shows
 * the client as it was before the rotation: written with a warning naming the same key, never
 * withheld: the old secret is already dead). The sandbox's clock is the test's, moved by the test.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as } from '../helpers/ascode.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { ACME, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

let now = Math.floor(Date.now() / 1000) * 1000 + 500;
const svc = useSandboxContext({ baseClock: () => now });
const files = useTempDir('svc-rotation-verdicts-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
const second = () => new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');

/** What happens between svc's POST and its read (another admin's rotation), once. */
let meanwhile: (() => Promise<void>) | undefined;
let posted = false;
const headersOf = (headers: Record<string, string | string[] | undefined>, names: string[]) =>
  Object.fromEntries(
    Object.entries(headers).filter(
      (h): h is [string, string] => names.includes(h[0].toLowerCase()) && typeof h[1] === 'string',
    ),
  );
const between = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (method === 'POST' && /rotate-secret$/.test(path)) posted = true;
    else if (method === 'GET' && posted && meanwhile) {
      const run = meanwhile;
      meanwhile = undefined;
      await run();
    }
  },
});
/** The same, on a server whose OAuth clients give secret_last4 but no secret_sha256_prefix. */
const last4Only = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (method === 'POST' && /rotate-secret$/.test(path)) posted = true;
    else if (method === 'GET' && posted && meanwhile) {
      const run = meanwhile;
      meanwhile = undefined;
      await run();
    }
  },
  reshape: (_method, path, status, text, headers) => {
    if (!/^\/v1\/oauth\/clients\//.test(path) || !text.startsWith('{')) return undefined;
    const { secret_sha256_prefix: _prefix, ...body } = JSON.parse(text);
    return {
      status,
      body: JSON.stringify(body),
      headers: headersOf(headers, ['date', 'idempotent-replayed']),
    };
  },
});
/** A read replica that lags: while `lagging`, a GET of the object answers what the first GET saw. */
const seen = new Map<string, string>();
let lagging = false;
const lag = (last4 = false) =>
  useLossyProxy(svc.sandbox, {
    lose: () => false,
    reshape: (method, path, status, text, headers) => {
      if (method !== 'GET' || !/^\/v1\/(oauth\/clients|webhooks)\/[^/]+$/.test(path)) return undefined;
      const body = last4 ? JSON.stringify({ ...JSON.parse(text), secret_sha256_prefix: undefined }) : text;
      const shown = lagging && seen.has(path) ? seen.get(path)! : body;
      seen.set(path, shown);
      return { status, body: shown, headers: headersOf(headers, ['date']) };
    },
  });
const lagged = lag();
const lagged4 = lag(true);

const CASES = [
  ['oauth', 'OAuth client', 'oauth', (id: string) => `/v1/oauth/clients/${id}/rotate-secret`],
  ['webhook', 'webhook', 'webhooks', (id: string) => `/v1/webhooks/${id}/rotate-secret`],
] as const;
let runs = 0;
const at = (url?: string) => ({ clock: { now: () => now }, ...(url ? { env: { SVC_BASE_URL: url } } : {}) });

async function made(noun: 'oauth' | 'webhook'): Promise<string> {
  const r =
    noun === 'oauth'
      ? await svc.run(
          [
            ...['oauth', 'create', '--name', `verdict-${++runs}`, '--redirect-uri', 'https://app.example/cb'],
            ...['--scope', 'read:reconciliations', '--show-secret', '--json'],
          ],
          at(),
        )
      : await svc.run(
          [
            ...[
              'webhooks',
              'create',
              '--url',
              `https://h.example/verdict-${++runs}`,
              '--event-type',
              'webhook.test',
            ],
            ...['--show-secret', '--json'],
          ],
          at(),
        );
  expect(r.code, r.stderr).toBe(0);
  const body = JSON.parse(r.stdout);
  return body.client_id ?? body.id;
}

const rotate = (group: string, id: string, file: string, key: string, url: string, ...more: string[]) =>
  svc.run(
    [group, 'rotate-secret', id, '--yes', '--secret-file', file, '--idempotency-key', key, ...more],
    at(url),
  );
const command = (group: string, id: string, file: string) =>
  `svc ${group} rotate-secret ${id} --secret-file ${file}${group === 'oauth' ? ' --yes' : ''}`;

describe('a keyed rotation used for the first time: every verdict', () => {
  it.each(CASES)('%s current: written, no warning', async (noun, _what, group) => {
    const id = await made(noun);
    posted = false;
    const file = join(files, `current-${++runs}`);
    const r = await rotate(group, id, file, `current-${runs}`, between().url);
    expect([r.code, r.stderr.includes('warning:'), existsSync(file)], r.stderr).toEqual([0, false, true]);
  });

  it.each(CASES)(
    '%s rotated-since: another rotation 2 s later, before the read: exit 6, nothing written',
    async (noun, what, group, path) => {
      const id = await made(noun);
      posted = false;
      meanwhile = async () => {
        now += 2000;
        await as(svc.sandbox(), ACME, 'POST', path(id), {});
      };
      const file = join(files, `since-${++runs}`);
      const key = `since-${runs}`;
      const r = await rotate(group, id, file, key, between().url);
      expect(r).toEqual({
        code: 6,
        stdout: '',
        stderr:
          `error: the rotation this command made with idempotency key ${key} is not the latest: ` +
          `${what} ${id}'s secret was rotated again since (${second()}), so the secret in its answer is not the current one, and svc neither prints nor writes it; ` +
          `get a new one with: ${command(group, id, file)}\n`,
      });
      expect(existsSync(file)).toBe(false);
    },
  );

  it.each([
    ...CASES.map(([a, b, c, d]) => [a, false, b, c, d] as const),
    ['oauth', true, CASES[0][1], CASES[0][2], CASES[0][3]] as const,
  ])(
    '%s replaced (last4 only: %s): another rotation in the same second, before the read: written with the doubt',
    async (noun, last4, what, group, path) => {
      const id = await made(noun);
      posted = false;
      meanwhile = () => as(svc.sandbox(), ACME, 'POST', path(id), {}).then(() => undefined);
      const file = join(files, `replaced-${++runs}`);
      const r = await rotate(
        group,
        id,
        file,
        `replaced-${runs}`,
        (last4 ? last4Only : between)().url,
        '--json',
      );
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ secret_may_be_replaced: true });
      expect(readFileSync(file, 'utf8').length).toBeGreaterThan(10);
      expect(r.stderr).toBe(
        `warning: ${what} ${id}'s secret was rotated again in the same second as this rotation (${second()}), by the server's read, whose fingerprint is not this secret's: ` +
          'this secret may already be replaced (svc cannot tell which rotation came last), so it is given with this warning; ' +
          `if it is refused, get a new one with: ${command(group, id, `${file}.new`)}\n`,
      );
    },
  );
});

describe('a keyed rotation whose read lags behind it (review29b H1): the secret is written, never withheld', () => {
  it.each([
    ['never rotated before', false, false],
    ['rotated 5 s before', true, false],
    ['never rotated before, last4 only', false, true],
    ['rotated 5 s before, last4 only', true, true],
  ] as const)('oauth, %s', async (_name, before, last4) => {
    const id = await made('oauth');
    const proxy = (last4 ? lagged4 : lagged)().url;
    if (before) {
      const first = await svc.run(
        ['oauth', 'rotate-secret', id, '--yes', '--show-secret', '--json'],
        at(proxy),
      );
      expect(first.code, first.stderr).toBe(0);
      now += 5000;
    }
    const earlier = before
      ? JSON.parse((await svc.run(['oauth', 'get', id, '--json'], at())).stdout).secret_rotated_at
      : null;
    seen.clear();
    lagging = true;
    const file = join(files, `lag-${++runs}`);
    const key = `lag-${runs}`;
    const r = await rotate('oauth', id, file, key, proxy);
    lagging = false;
    expect(r.code, r.stderr).toBe(0);
    const shows = earlier ? `it shows a rotation at ${earlier} with another secret` : 'it shows no rotation';
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
      `warning: svc could not check OAuth client ${id}'s new secret: the server's read does not show this rotation (${shows}), as a read that lags behind the rotation would; ` +
        `the same command with --idempotency-key ${key} gets this same secret again and checks it again, for 24 hours; ` +
        `if the secret is refused, get a new one with: ${command('oauth', id, `${file}.new`)}`,
    ]);
    const nowRead = JSON.parse((await svc.run(['oauth', 'get', id, '--json'], at())).stdout);
    expect(readFileSync(file, 'utf8').trim().slice(-4)).toBe(nowRead.secret_last4);
  });

  it('webhook: a lagging read lists fewer secrets rotated out, no proof either way: written', async () => {
    const id = await made('webhook');
    seen.clear();
    lagging = true;
    const file = join(files, `lag-wh-${++runs}`);
    const r = await rotate('webhooks', id, file, `lag-wh-${runs}`, lagged().url);
    lagging = false;
    expect([r.code, existsSync(file)], r.stderr).toEqual([0, true]);
  });
});
