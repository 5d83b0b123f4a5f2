/**
 * Creations under a server that does not mark its stored answers with Idempotent-Replayed (the
 * reference names no such header; attack18b 1): another spelling is read, and an answer under
 * the user's own key is checked as a stored one would be — a deleted object's dead secret is never
 * printed nor written as a fresh creation. Only the server's word makes it an earlier run's: an
 * object's time against the server's Date is two clocks (review18b R1, review19 F7).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Reshaped, useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);
const files = useTempDir('svc-unmarked-');
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
        `error: OAuth client ${made.client_id}, which the platform answered with under idempotency key ${key}, is not found after 4 reads: ` +
        "the server does not say which answers are stored ones, so this is most likely an earlier run's stored answer and the client deleted since, or the server is still slow to show it; " +
        'svc neither prints nor writes its secret; ' +
        'if the server is only slow to show a client this command made, the same command again (the same --idempotency-key) gets it and its secret; ' +
        'otherwise, to make a new client, run the command without --idempotency-key (or with a new key)\n',
    });
  });

  // review19 F6 (e): the help said only "deleted since: exit 5" of what a lagging read gets too.
  it.each(['oauth create', 'webhooks create', 'tenants api-keys create'])(
    '%s --help names the lagging read and the same-key re-run',
    async (verb) => {
      const r = await svc.run([...verb.split(' '), '--help']);
      const text = r.stdout.replace(/\s+/g, ' ');
      expect(text).toContain(
        '(a read that lags): the same command with the same --idempotency-key then gets it',
      );
    },
  );

  // review19 F6 (f): "slow to show a API key".
  it('tenants api-keys create, re-run with the same key after a revoke: the hint says "an API key"', async () => {
    const key = newKey();
    const argv = [
      ...['tenants', 'api-keys', 'create', 'acme-treasury', '--kind', 'publishable', '--name', key],
      ...['--show-secret', '--idempotency-key', key],
    ];
    const made = JSON.parse((await svc.run([...argv, '--json'])).stdout);
    const revoked = await svc.run(['tenants', 'api-keys', 'revoke', 'acme-treasury', made.id, '--yes']);
    expect(revoked.code, revoked.stderr).toBe(0);
    proxy().set({ reshape: unmarked() });
    const r = await viaProxy(argv);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('if the server is only slow to show an API key this command made,');
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
// apply skip or re-create it). Nor do they decide under the user's own key (review19 F7).
/** A gateway's Date two minutes ahead of the platform that stamps created_at. */
const ahead = (answer: Reshaped): void => {
  answer.headers.date = new Date(Date.now() + 120_000).toUTCString();
};

describe('a server whose Date header runs ahead of its objects’ times', () => {
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

  // review19 F7: under the user's own key the clocks still decided — a Date two minutes ahead made a
  // client this command had just made "created by an earlier run … deleted since" when the read
  // lagged (a 404), without the same-key way back; and, not lagging, "already created by an earlier run".
  it('oauth create --idempotency-key, the read lagging: both readings and the same-key way back, never "an earlier run" (exit 5)', async () => {
    const key = newKey();
    let id = '';
    proxy().set({
      reshape: (answer) => {
        ahead(answer);
        if (answer.method === 'POST') id = (answer.body as { client_id: string }).client_id;
        else if (answer.path === `/v1/oauth/clients/${id}`) {
          answer.status = 404;
          answer.body = { error: { code: 'not_found', message: 'not found' } };
        }
      },
    });
    const file = join(files, `${key}.secret`);
    const r = await viaProxy([...oauth(key), '--secret-file', file]);
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr:
        `error: OAuth client ${id}, which the platform answered with under idempotency key ${key}, is not found after 4 reads: ` +
        "the server does not say which answers are stored ones, so this is most likely an earlier run's stored answer and the client deleted since, or the server is still slow to show it; " +
        'svc neither prints nor writes its secret; ' +
        'if the server is only slow to show a client this command made, the same command again (the same --idempotency-key) gets it and its secret; ' +
        'otherwise, to make a new client, run the command without --idempotency-key (or with a new key)\n',
    });
    expect(existsSync(file)).toBe(false);
  });

  it('webhooks create --idempotency-key, a new webhook: shown as created, no "earlier run" note', async () => {
    const key = newKey();
    proxy().set({ reshape: ahead });
    const r = await viaProxy([...webhook(key), '--show-secret', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const made = JSON.parse(r.stdout);
    expect([made.replayed, typeof made.secret]).toEqual([undefined, 'string']);
  });
});

// review19 F4: a server whose read gives secret_rotated_at as the creation time (a "last rotated"
// that starts at creation) while the creation's answer says null: a webhook or client this command
// had just made was "created by an earlier run … rotated since", its secret neither printed nor written.
describe('a server whose read says the secret was last rotated at the creation', () => {
  const rotatedAtCreation = (answer: Reshaped): void => {
    const body = answer.body as { secret_rotated_at?: string | null; created_at?: string };
    if (answer.method === 'GET' && typeof body === 'object' && body?.secret_rotated_at === null)
      body.secret_rotated_at = body.created_at ?? null;
  };

  it('webhooks create --idempotency-key --secret-file: the secret written, exit 0', async () => {
    const key = newKey();
    proxy().set({ reshape: rotatedAtCreation });
    const file = join(files, `${key}.secret`);
    const r = await viaProxy([...webhook(key), '--secret-file', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^whsec_/);
  });

  it('oauth create --idempotency-key --secret-file: the secret written, exit 0', async () => {
    const key = newKey();
    proxy().set({ reshape: rotatedAtCreation });
    const file = join(files, `${key}.secret`);
    const r = await viaProxy([...oauth(key), '--secret-file', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^\S+$/);
  });
});
