/**
 * Ctrl-C during the check that follows a replayed creation or rotation (`--idempotency-key K`,
 * the remedy svc names for a lost answer): the platform's stored answer, secret included, is in
 * hand, but not yet checked against the object as it is now (rotated or deleted since). svc says
 * that the object exists, that nothing new was made, that its secret was neither written nor
 * printed, and the command that gets it (review16 R8) — not "the request was cancelled" alone.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { ACME, advanceClock, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-check-cut-');
afterAll(() => rmSync(files, { recursive: true, force: true }));

/**
 * The GET whose arrival at the proxy plays Ctrl-C (the answer is then never sent), after `pass`
 * such GETs went through (a keyed rotation reads its object once before it is sent).
 */
const cut: { path: RegExp | undefined; controller: AbortController | undefined; pass: number } = {
  path: undefined,
  controller: undefined,
  pass: 0,
};
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: (method, path) => {
    if (method !== 'GET' || !cut.path?.test(path)) return;
    if (cut.pass-- > 0) return;
    cut.path = undefined;
    cut.controller?.abort();
    return new Promise<void>(() => {});
  },
});

/**
 * Until when the platform keeps a stored answer made at `at` (review16e E7): 24 hours on less a
 * minute, to the minute, named with the time it counts from.
 */
const keptUntil = (at: string) =>
  `before ${new Date(Date.parse(at) + 86_400_000 - 60_000).toISOString().slice(0, 16)}Z (the platform's clock: it keeps the answer 24 hours from ${at})`;

/** Runs argv through the proxy, interrupted when it GETs `path`. */
function interruptedAt(argv: string[], path: RegExp, pass = 0) {
  cut.path = path;
  cut.pass = pass;
  cut.controller = new AbortController();
  return svc.run(argv, { signal: cut.controller.signal, env: { SVC_BASE_URL: proxy().url } });
}

describe('Ctrl-C while checking what a stored answer names', () => {
  it('svc oauth create --idempotency-key K: the client exists, its secret not written, the same command gets it (exit 130)', async () => {
    const key = `cut-check-${Date.now()}`;
    const file = join(files, 'client.secret');
    const argv = [
      ...['oauth', 'create', '--name', 'cut-check', '--redirect-uri', 'https://a.example/cb'],
      ...['--scope', 'read:reconciliations', '--idempotency-key', key],
    ];
    const first = await svc.run([...argv, '--show-secret', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const { client_id: id, created_at: createdAt } = JSON.parse(first.stdout) as Record<string, string>;
    // 23 h 50 min later: ten minutes are left of the key's 24 hours, not "24 hours" (review16e E7).
    await advanceClock(svc.sandbox(), 85_800);

    const r = await interruptedAt([...argv, '--secret-file', file], new RegExp(`^/v1/oauth/clients/${id}$`));
    expect(r).toEqual({
      code: 130,
      stdout: '',
      stderr:
        `error: interrupted while checking OAuth client ${id}, which the platform's stored answer to idempotency key ${key} names: it exists, nothing new was made, ` +
        'and its secret was neither written nor printed: it was not checked yet; ' +
        `to get it, run the same command again ${keptUntil(createdAt!)}: the platform answers with the same secret\n`,
    });
    expect(createdAt).toMatch(/^\d{4}-/);
    expect(existsSync(file)).toBe(false);

    const again = await svc.run([...argv, '--secret-file', file]);
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(file)).toBe(true);
  });

  it('svc webhooks rotate-secret --idempotency-key K: the rotation was made; the exact re-run that gets its secret', async () => {
    const made = await svc.run([
      ...['webhooks', 'create', '--url', 'https://cut.example/hook', '--event-type', 'exception.created'],
      ...['--show-secret', '--json'],
    ]);
    expect(made.code, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).id as string;
    const key = `cut-rotate-${Date.now()}`;
    const rotated = await svc.run([
      'webhooks',
      'rotate-secret',
      id,
      '--show-secret',
      '--json',
      '--idempotency-key',
      key,
    ]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const rotatedAt = JSON.parse(rotated.stdout).secret_rotated_at as string;

    const file = join(files, 'rotated.secret');
    const argv = ['webhooks', 'rotate-secret', id, '--idempotency-key', key, '--secret-file', file];
    // The second read: the first is the one before the request (brief s29 fixrot 3).
    const r = await interruptedAt(argv, new RegExp(`^/v1/webhooks/${id}$`), 1);
    expect(r).toEqual({
      code: 130,
      stdout: '',
      stderr:
        `error: interrupted while checking the rotation of webhook ${id}'s secret, which the platform's stored answer to idempotency key ${key} names: it was made, nothing new was made, ` +
        'and its new secret was neither written nor printed: it was not checked yet; ' +
        `to get it, run svc webhooks rotate-secret ${id} --idempotency-key ${key} --secret-file ${file} ${keptUntil(rotatedAt)}: the platform answers with the same new secret\n`,
    });
    expect(existsSync(file)).toBe(false);
  });

  it('svc oauth rotate-secret --idempotency-key K, Ctrl-C during its read before the request: nothing rotated', async () => {
    const made = await svc.run([
      ...['oauth', 'create', '--name', 'cut-before', '--redirect-uri', 'https://a.example/cb'],
      ...['--scope', 'read:reconciliations', '--show-secret', '--json'],
    ]);
    expect(made.code, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).client_id as string;
    const file = join(files, 'cut-before.secret');
    const argv = ['oauth', 'rotate-secret', id, '--yes', '--idempotency-key', `cut-before-${id}`];
    const r = await interruptedAt([...argv, '--secret-file', file], new RegExp(`^/v1/oauth/clients/${id}$`));
    // Nothing was sent: the exact words say so (review29b L1: only "not stored answer" was asserted).
    expect(r).toEqual({ code: 130, stdout: '', stderr: 'error: interrupted; the request was cancelled\n' });
    expect(existsSync(file)).toBe(false);
    const now = await svc.run(['oauth', 'get', id, '--json']);
    expect(JSON.parse(now.stdout).secret_rotated_at).toBeNull();
  });

  it('svc tenants api-keys create --idempotency-key K: the key exists, not written', async () => {
    const key = `cut-key-${Date.now()}`;
    const argv = [
      ...['tenants', 'api-keys', 'create', ACME, '--kind', 'service_role', '--name', 'cut-check'],
      ...['--justification', 'testing a cut check', '--idempotency-key', key],
    ];
    const first = await svc.run([...argv, '--show-secret', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const { id, created_at: createdAt } = JSON.parse(first.stdout) as Record<string, string>;
    const file = join(files, 'sr.key');
    const expected = {
      code: 130,
      stdout: '',
      stderr:
        `error: interrupted while checking API key ${id}, which the platform's stored answer to idempotency key ${key} names: it exists, nothing new was made, ` +
        'and its key was neither written nor printed: it was not checked yet; ' +
        `to get it, run the same command again ${keptUntil(createdAt!)}: the platform answers with the same key\n`,
    };
    // Cut in the tenant's list of keys, and in the key's own GET /v1/me (is it stopped?).
    for (const at of [/^\/v1\/tenants\/[^/]+\/api-keys/, /^\/v1\/me$/]) {
      const r = await interruptedAt([...argv, '--secret-file', file], at);
      expect(r, String(at)).toEqual(expected);
      expect(existsSync(file)).toBe(false);
    }
  });
});
