/**
 * review18b R2: a creation under the user's own --idempotency-key, on a server that does not mark
 * stored answers, is checked by reading its object back; a server whose reads lag behind its writes
 * answers that read 404 (or lists without it) just after the 201. svc judged the fresh object gone:
 * exit 5, and its one-time secret withheld — lost. It reads again after short waits (on the run's
 * clock: these tests do not wait), and only an object still not there is gone (exit 5).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { virtualClock } from '../helpers/context.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { type Reshaped, useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { ACME, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);
// review19b F9: the first POST of a creation forwarded, its answer dropped (a reset): svc's retry
// under the same key gets the platform's stored answer, marked — this run's own creation.
let rewriting: ((method: string, path: string) => string) | undefined;
let dropList: ((text: string) => string) | undefined;
const dropping = useLossyProxy(svc.sandbox, {
  lose: (method, path, seen) =>
    method === 'POST' &&
    seen === 1 &&
    /^\/v1\/(webhooks|oauth\/clients|tenants\/[^/]+\/api-keys|reconciliations)$/.test(path)
      ? 'drop'
      : false,
  rewrite: (method, path) => rewriting?.(method, path) ?? path,
  reshape: (method, path, status, text) =>
    method === 'GET' && /\/api-keys(\?|$)/.test(path) && dropList
      ? { status, body: dropList(text) }
      : undefined,
});
beforeEach(() => {
  rewriting = undefined;
  dropList = undefined;
  dropping().reset();
});
const dir = useTempDir('svc-lagging-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
const newKey = () => `lagging-${++runs}-${Date.now()}`;

/** The first `misses` GETs of one object (`/v1/<collection>/<id>`) asked of an id the sandbox does not know: its 404. */
function lagging(collection: RegExp, misses: number) {
  let left = misses;
  return (method: string, path: string): string => {
    const m = collection.exec(path);
    if (method !== 'GET' || m === null || left === 0) return path;
    left--;
    return path.replace(/[^/]+$/, `${m[1]}${'0'.repeat(24)}`);
  };
}

const webhook = (key: string) => [
  ...['webhooks', 'create', '--url', `https://h.example/${key}`, '--event-type', 'webhook.test'],
  ...['--idempotency-key', key, '--show-secret', '--json'],
];
const oauth = (key: string) => [
  ...[
    'oauth',
    'create',
    '--name',
    key,
    '--redirect-uri',
    'https://r.example/cb',
    '--scope',
    'read:exceptions',
  ],
  ...['--idempotency-key', key, '--show-secret', '--json'],
];

describe('a fresh creation under the user’s own key, its read lagging', () => {
  it.each([
    ['webhooks create', webhook, /^\/v1\/webhooks\/(wh_)[^/?]+$/, 'secret'],
    ['oauth create', oauth, /^\/v1\/oauth\/clients\/(cli_)[^/?]+$/, 'client_secret'],
  ] as const)('%s: two 404s, then found: exit 0, the secret printed', async (_, argv, one, field) => {
    const clock = virtualClock();
    proxy().rewrite(lagging(one, 2));
    const r = await svc.run(argv(newKey()), { clock, env: { SVC_BASE_URL: proxy().url } });
    expect(r.code, r.stderr).toBe(0);
    const made = JSON.parse(r.stdout);
    expect(made[field]).toMatch(/\S{16}/);
    expect(made.replayed).toBeUndefined();
    expect(proxy().seen.filter((s) => s.startsWith('GET ')).length).toBe(3);
    expect(clock.waits).toEqual([250, 500]);
  });

  it('webhooks create: still 404 after every wait: exit 5, the secret withheld, as before', async () => {
    const clock = virtualClock();
    proxy().rewrite(lagging(/^\/v1\/webhooks\/(wh_)[^/?]+$/, 10));
    const key = newKey();
    const r = await svc.run(webhook(key), { clock, env: { SVC_BASE_URL: proxy().url } });
    expect([r.code, r.stdout]).toEqual([5, '']);
    expect(JSON.parse(r.stderr).error.code).toBe('webhook_deleted');
    expect(proxy().seen.filter((s) => s.startsWith('GET ')).length).toBe(4);
    expect(clock.waits).toEqual([250, 500, 1000]);
  });

  it('tenants api-keys create --secret-file: listed only on the third read: the key written, exit 0', async () => {
    const clock = virtualClock();
    let misses = 2;
    proxy().reshape((answer: Reshaped) => {
      if (answer.method !== 'GET' || !/\/api-keys(\?|$)/.test(answer.path) || misses === 0) return;
      misses--;
      const body = answer.body as { items: Array<{ name: string }> };
      body.items = body.items.filter((k) => k.name !== 'lagging');
    });
    const file = join(dir, 'lagging.secret');
    const r = await svc.run(
      ['tenants', 'api-keys', 'create', ACME, '--kind', 'publishable', '--name', 'lagging'].concat([
        ...['--idempotency-key', newKey(), '--secret-file', file],
      ]),
      { clock, env: { SVC_BASE_URL: proxy().url } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(file) && readFileSync(file, 'utf8')).toMatch(/\S{16}/);
    expect(clock.waits).toEqual([250, 500]);
  });
});

describe("the stored answer to a retry after this run's answer was lost, its read lagging (F9)", () => {
  it.each([
    ['webhooks create', webhook, /^\/v1\/webhooks\/(wh_)[^/?]+$/, 'secret'],
    ['oauth create', oauth, /^\/v1\/oauth\/clients\/(cli_)[^/?]+$/, 'client_secret'],
  ] as const)('%s: two 404s, then found: exit 0, the secret printed', async (_, argv, one, field) => {
    const clock = virtualClock();
    rewriting = lagging(one, 2);
    const r = await svc.run(argv(newKey()), { clock, env: { SVC_BASE_URL: dropping().url } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[field]).toMatch(/\S{16}/);
    // The first wait is the retry's after the dropped answer.
    expect(clock.waits).toEqual([expect.any(Number), 250, 500]);
  });

  it('tenants api-keys create --secret-file: listed only on the third read: the key written, exit 0', async () => {
    const clock = virtualClock();
    let misses = 2;
    dropList = (text) => {
      if (misses === 0) return text;
      misses--;
      const body = JSON.parse(text) as { items: Array<{ name: string }> };
      return JSON.stringify({ ...body, items: body.items.filter((k) => k.name !== 'lost-lagging') });
    };
    const file = join(dir, 'lost-lagging.secret');
    const r = await svc.run(
      ['tenants', 'api-keys', 'create', ACME, '--kind', 'publishable', '--name', 'lost-lagging'].concat([
        ...['--idempotency-key', newKey(), '--secret-file', file],
      ]),
      { clock, env: { SVC_BASE_URL: dropping().url } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(file) && readFileSync(file, 'utf8')).toMatch(/\S{16}/);
    // The first wait is the retry's after the dropped answer.
    expect(clock.waits).toEqual([expect.any(Number), 250, 500]);
  });

  it('webhooks create: still 404 after every wait: exit 5, "not found after 4 reads" (never "deleted"), both readings and the same key, never "an earlier run"', async () => {
    const clock = virtualClock();
    rewriting = lagging(/^\/v1\/webhooks\/(wh_)[^/?]+$/, 10);
    const key = newKey();
    const argv = webhook(key).filter((a) => a !== '--json');
    const r = await svc.run(argv, { clock, env: { SVC_BASE_URL: dropping().url } });
    expect([r.code, r.stdout]).toEqual([5, '']);
    expect(clock.waits).toEqual([expect.any(Number), 250, 500, 1000]);
    const id = /webhook (wh_\w+)/.exec(r.stderr)?.[1];
    expect(r.stderr).toBe(
      `error: webhook ${id}, which the platform answered with under idempotency key ${key} after this run's first answer was lost, is not found after 4 reads: ` +
        'either it was deleted since or the server is still slow to show it ' +
        "(that answer was the platform's stored one, which may be this run's creation or an earlier run's with that key: svc cannot tell); " +
        'svc neither prints nor writes its signing secret; ' +
        'if the server is only slow to show a webhook this command made, the same command again (the same --idempotency-key) gets it and its signing secret; ' +
        'otherwise, to make a new webhook, run the command without --idempotency-key (or with a new key)\n',
    );
  });
  it.each([
    [2, 0, ''],
    [10, 5, 'the same command again (the same idempotency_key in the data)'],
  ])('records create, its read 404 %i times: exit %i', async (misses, code, again) => {
    const clock = virtualClock();
    rewriting = lagging(/^\/v1\/reconciliations\/([a-z]+_)[^/?]+$/, misses);
    const data = { idempotency_key: newKey(), amount: '1.00', currency: 'USD' };
    const r = await svc.run(['records', 'create', 'reconciliations', '--data', JSON.stringify(data)], {
      clock,
      env: { SVC_BASE_URL: dropping().url },
    });
    expect(r.code, r.stderr).toBe(code);
    // After the retry's own wait, if it had one.
    expect(clock.waits.slice(code ? -3 : -2)).toEqual(code ? [250, 500, 1000] : [250, 500]);
    expect(r.stderr).not.toContain('created by an earlier run');
    if (code)
      expect(r.stderr).toContain(
        `if the server is only slow to show a record this command made, ${again} gets it; otherwise, `,
      );
  });
});

describe('Ctrl-C while waiting for the server to show the object (F3)', () => {
  it('webhooks create, after two 404s: "not found yet", never "it exists"; exit 130, the same command gets it', async () => {
    const cut = new AbortController();
    const base = virtualClock();
    const clock = {
      ...base,
      sleep: (ms: number, signal?: AbortSignal) => {
        if (base.waits.length === 1) cut.abort();
        return base.sleep(ms, signal);
      },
    };
    proxy().rewrite(lagging(/^\/v1\/webhooks\/(wh_)[^/?]+$/, 10));
    const key = newKey();
    const argv = webhook(key).filter((a) => a !== '--json');
    const r = await svc.run(argv, { clock, signal: cut.signal, env: { SVC_BASE_URL: proxy().url } });
    expect([r.code, r.stdout]).toEqual([130, '']);
    expect(proxy().seen.filter((s) => s.startsWith('GET ')).length).toBe(2);
    const id = /webhook (wh_\w+)/.exec(r.stderr)?.[1];
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: interrupted while checking webhook ${id}, which the platform answered with under idempotency key ${key} ` +
          '\\(made by this run or by an earlier one with that key: the server does not say\\): ' +
          'not found yet: the server answered every read so far that it is not there, and svc was waiting for it to show it ' +
          "\\(a server's reads may lag behind its writes; or it was deleted since\\), " +
          'and its signing secret was neither written nor printed: it was not checked yet; to get it, run the same command again before ',
      ),
    );
    expect(r.stderr).not.toContain('it exists');
  });
  it('tenants api-keys create, after two lists without it: "not found yet", never "it exists"; exit 130', async () => {
    const cut = new AbortController();
    const base = virtualClock();
    const clock = {
      ...base,
      sleep: (ms: number, signal?: AbortSignal) => {
        if (base.waits.length === 1) cut.abort();
        return base.sleep(ms, signal);
      },
    };
    proxy().reshape((answer: Reshaped) => {
      if (answer.method !== 'GET' || !/\/api-keys(\?|$)/.test(answer.path)) return;
      const body = answer.body as { items: Array<{ name: string }> };
      body.items = body.items.filter((k) => k.name !== 'cut-lagging');
    });
    const key = newKey();
    const r = await svc.run(
      ['tenants', 'api-keys', 'create', ACME, '--kind', 'publishable', '--name', 'cut-lagging'].concat([
        ...['--idempotency-key', key, '--show-secret'],
      ]),
      { clock, signal: cut.signal, env: { SVC_BASE_URL: proxy().url } },
    );
    expect([r.code, r.stdout]).toEqual([130, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: interrupted while checking API key key_\\w+, which the platform answered with under idempotency key ${key} ` +
          '\\(made by this run or by an earlier one with that key: the server does not say\\): not found yet: ',
      ),
    );
    expect(r.stderr).not.toContain('it exists');
  });
});
