/**
 * Creations under a server that does not mark its stored answers with Idempotent-Replayed (the
 * reference names no such header; attack18b 1): another spelling is read, and an answer under
 * the user's own key is checked as a stored one would be — a deleted object's dead secret is never
 * printed nor written as a fresh creation. An object made clearly before the request (the
 * server's Date) is a stored answer, and svc says so.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Reshaped, useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);
const files = mkdtempSync(join(tmpdir(), 'svc-unmarked-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));

let runs = 0;
const newKey = () => `unmarked-${++runs}-${Date.now()}`;
const oauth = (key: string) => [
  ...['oauth', 'create', '--name', key, '--redirect-uri', 'https://r.example/cb'],
  ...['--scope', 'read:exceptions', '--idempotency-key', key],
];
const webhook = (key: string) => [
  ...['webhooks', 'create', '--url', `https://h.example/${key}`, '--event-type', 'webhook.test'],
  ...['--idempotency-key', key],
];
const viaProxy = (argv: string[]) => svc.run(argv, { env: { SVC_BASE_URL: proxy().url } });

/** The sandbox's answers without its Idempotent-Replayed header (or with it spelled `as`). */
const unmarked =
  (as?: string) =>
  (answer: Reshaped): void => {
    const value = answer.headers['idempotent-replayed'];
    delete answer.headers['idempotent-replayed'];
    if (as && value !== undefined) answer.headers[as] = value;
  };

describe('a server that does not say Idempotent-Replayed', () => {
  it('oauth create, re-run with the same key after a delete: exit 5, the dead secret neither printed nor said to be new', async () => {
    const key = newKey();
    const made = JSON.parse((await svc.run([...oauth(key), '--show-secret', '--json'])).stdout);
    expect((await svc.run(['oauth', 'delete', made.client_id, '--yes'])).code).toBe(0);
    proxy().set({ reshape: unmarked() });
    const r = await viaProxy([...oauth(key), '--show-secret']);
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr:
        `error: OAuth client ${made.client_id}, which the platform answered with under idempotency key ${key}, is deleted now: ` +
        "the server does not say which answers are stored ones, so this is most likely an earlier run's stored answer and the client has been deleted since; " +
        'svc neither prints nor writes its secret; ' +
        'if the server is only slow to show a client this command made, the same command again (the same --idempotency-key) gets it and its secret; ' +
        'otherwise, to make a new client, run the command without --idempotency-key (or with a new key)\n',
    });
  });

  it('webhooks create --secret-file, same key after a delete, header spelled Idempotency-Replayed: the stored-answer words, no file', async () => {
    const key = newKey();
    const made = JSON.parse((await svc.run([...webhook(key), '--show-secret', '--json'])).stdout);
    expect((await svc.run(['webhooks', 'delete', made.id, '--yes'])).code).toBe(0);
    proxy().set({ reshape: unmarked('idempotency-replayed') });
    const file = join(files, `${key}.secret`);
    const r = await viaProxy([...webhook(key), '--secret-file', file]);
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr:
        `error: webhook ${made.id} was created by an earlier run with idempotency key ${key} and has been deleted since; ` +
        "the platform answered with that run's stored answer, whose signing secret no longer works; " +
        'to make a new webhook, run the command without --idempotency-key (or with a new key)\n',
    });
    expect(existsSync(file)).toBe(false);
  });

  it('an unmarked answer whose object was made minutes before the request (the Date header): said to be the stored answer', async () => {
    const key = newKey();
    const made = JSON.parse((await svc.run([...webhook(key), '--show-secret', '--json'])).stdout);
    proxy().set({
      reshape: (answer) => {
        unmarked()(answer);
        const date = Date.parse(answer.headers.date ?? '');
        answer.headers.date = new Date(date + 10 * 60_000).toUTCString();
      },
    });
    const r = await viaProxy([...webhook(key), '--show-secret']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe(
      `webhook ${made.id} was already created by an earlier run with this idempotency key: this is the platform's stored answer, with the webhook as it is now.`,
    );
    const json = await viaProxy([...webhook(key), '--show-secret', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: made.id, secret: made.secret, replayed: true });
  });

  it('Ctrl-C while checking an unmarked answer: never "nothing new was made" (it may be this run\'s creation)', async () => {
    const key = newKey();
    const cut = new AbortController();
    let id = '';
    proxy().set({
      reshape: (answer) => {
        unmarked()(answer);
        if (answer.method === 'POST') id = (answer.body as { id: string }).id;
        else if (answer.path === `/v1/webhooks/${id}`) cut.abort();
      },
    });
    const file = join(files, `${key}.secret`);
    const r = await svc.run([...webhook(key), '--secret-file', file], {
      env: { SVC_BASE_URL: proxy().url },
      signal: cut.signal,
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: interrupted while checking webhook ${id}, which the platform answered with under idempotency key ${key} ` +
          '\\(made by this run or by an earlier one with that key: the server does not say\\): it exists, ' +
          'and its signing secret was neither written nor printed: it was not checked yet; to get it, run the same command again ',
      ),
    );
    expect(r.stderr).not.toContain('nothing new was made');
    expect(existsSync(file)).toBe(false);
  });

  it("a first creation under the user's key on such a server: shown as created, once", async () => {
    const key = newKey();
    proxy().set({ reshape: unmarked() });
    const r = await viaProxy([...webhook(key), '--show-secret', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const made = JSON.parse(r.stdout);
    expect(made.replayed).toBeUndefined();
    expect(proxy().seen).toEqual(['POST /v1/webhooks', `GET /v1/webhooks/${made.id}`]);
  });
});

// review18b R1: two clocks — a gateway whose Date is two minutes ahead of the platform that stamps
// created_at — made a creation under a key svc chose "already created by an earlier run" (and
// apply skip or re-create it). A key svc chose was never sent before this run: its answer is this
// run's creation, whatever the clocks say.
describe('a server whose Date header runs ahead of its objects’ times', () => {
  const ahead = (answer: Reshaped): void => {
    answer.headers.date = new Date(Date.now() + 120_000).toUTCString();
  };

  it('webhooks create without --idempotency-key: a new webhook, never "an earlier run"', async () => {
    proxy().set({ reshape: ahead });
    const r = await viaProxy([
      ...[
        'webhooks',
        'create',
        '--url',
        `https://h.example/ahead-${Date.now()}`,
        '--event-type',
        'webhook.test',
      ],
      ...['--show-secret', '--json'],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const made = JSON.parse(r.stdout);
    expect([made.replayed, typeof made.secret]).toEqual([undefined, 'string']);
  });
});
