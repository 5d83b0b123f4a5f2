/**
 * `svc webhooks create` and `svc tenants api-keys create` answered from the platform's stored
 * answer to their idempotency key (src/commands/replayed-creation.ts; `oauth create`'s own cases
 * are in oauth/create-replayed.test.ts): a re-run with the same --idempotency-key after the
 * object was deleted, revoked, rotated or updated, and a creation whose every answer was lost.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useLostCreations } from '../helpers/lossy-proxy.js';
import { ACME, advanceClock, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-replayed-creation-');
afterAll(() => rmSync(files, { recursive: true, force: true }));

const lost = useLostCreations(svc.sandbox);

let runs = 0;
const newKey = () => `replayed-creation-${++runs}-${Date.now()}`;
const webhook = (key: string, url = `https://h.example/${key}`) => [
  ...['webhooks', 'create', '--url', url, '--event-type', 'webhook.test', '--idempotency-key', key],
];
const apiKey = (key: string) => [
  ...[
    'tenants',
    'api-keys',
    'create',
    ACME,
    '--kind',
    'publishable',
    '--name',
    key,
    '--idempotency-key',
    key,
  ],
];

describe('svc webhooks create --idempotency-key K, run again', () => {
  it('after a rotation: the stale signing secret is neither printed nor written (exit 6)', async () => {
    const key = newKey();
    const made = JSON.parse((await svc.run([...webhook(key), '--show-secret', '--json'])).stdout);
    // Rotated a later second than the creation (the sandbox's times are in seconds): one read back
    // as the creation's own second is no rotation since (review19 F4).
    await advanceClock(svc.sandbox(), 2);
    const rotated = await svc.run(['webhooks', 'rotate-secret', made.id, '--show-secret', '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const at = JSON.parse(rotated.stdout).secret_rotated_at;
    const file = join(files, `${key}.secret`);
    const r = await svc.run([...webhook(key), '--secret-file', file]);
    expect(r).toEqual({
      code: 6,
      stdout: '',
      stderr:
        `error: webhook ${made.id} was created by an earlier run with idempotency key ${key}, and its signing secret was rotated since (${at}): ` +
        "the signing secret in the platform's stored answer no longer works, so svc neither prints nor writes it; " +
        `the signing secret of the rotation is the webhook's; if it is lost, get a new one with: svc webhooks rotate-secret ${made.id} --secret-file PATH\n`,
    });
    expect(existsSync(file)).toBe(false);
  });

  it('after a delete: says the webhook is gone (exit 5)', async () => {
    const key = newKey();
    const made = JSON.parse((await svc.run([...webhook(key), '--show-secret', '--json'])).stdout);
    expect((await svc.run(['webhooks', 'delete', made.id, '--yes'])).code).toBe(0);
    const r = await svc.run([...webhook(key), '--show-secret']);
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr:
        `error: webhook ${made.id} was created by an earlier run with idempotency key ${key} and has been deleted since; ` +
        "the platform answered with that run's stored answer, whose signing secret no longer works; " +
        'to make a new webhook, run the command without --idempotency-key (or with a new key)\n',
    });
    expect(r.stderr).not.toContain(made.secret);
  });

  it('after an update: the webhook as it is now, with its still valid secret', async () => {
    const key = newKey();
    const made = JSON.parse((await svc.run([...webhook(key), '--show-secret', '--json'])).stdout);
    const updated = await svc.run(['webhooks', 'update', made.id, '--url', 'https://h.example/moved']);
    expect(updated.code, updated.stderr).toBe(0);
    const file = join(files, `${key}.secret`);
    const r = await svc.run([...webhook(key), '--secret-file', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\nurl\thttps:\/\/h\.example\/moved\n/);
    expect(r.stderr).toBe(
      `webhook ${made.id} was already created by an earlier run with this idempotency key: this is the platform's stored answer, with the webhook as it is now\n` +
        `the signing secret is in ${file}; it is not shown again\ntry it: svc webhooks test ${made.id}\n`,
    );
    expect(readFileSync(file, 'utf8').trim()).toBe(made.secret);
    const json = JSON.parse((await svc.run([...webhook(key), '--show-secret', '--json'])).stdout);
    expect(json).toEqual({
      ...made,
      url: 'https://h.example/moved',
      updated_at: json.updated_at,
      replayed: true,
    });
  });
});

describe('svc tenants api-keys create --idempotency-key K, run again', () => {
  it('a plain re-run: the same key, said to be an earlier run\'s; --json says "replayed"', async () => {
    const key = newKey();
    const made = JSON.parse((await svc.run([...apiKey(key), '--json'])).stdout);
    const again = await svc.run([...apiKey(key), '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ ...made, replayed: true });
    const shown = await svc.run(apiKey(key));
    expect(shown.stderr.split('\n')[0]).toBe(
      `API key ${made.id} was already created by an earlier run with this idempotency key: this is the platform's stored answer, with the API key as it is now`,
    );
    // Not "✓ created" (this run made nothing, attack26a F9): only the file it wrote is its doing.
    const file = join(files, `${key}.again.key`);
    const written = await svc.run([...apiKey(key), '--secret-file', file]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toBe(
      `API key ${made.id} was already created by an earlier run with this idempotency key: this is the platform's stored answer, with the API key as it is now\n` +
        `✓ wrote the key of API key ${made.id} to ${file} (mode 0600)\n`,
    );
  });

  it('after a revoke: says the key is revoked, and writes no dead key (exit 5)', async () => {
    const key = newKey();
    const made = JSON.parse((await svc.run([...apiKey(key), '--json'])).stdout);
    expect((await svc.run(['tenants', 'api-keys', 'revoke', ACME, made.id, '--yes'])).code).toBe(0);
    const file = join(files, `${key}.key`);
    const r = await svc.run([...apiKey(key), '--secret-file', file]);
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr:
        `error: API key ${made.id} was created by an earlier run with idempotency key ${key} and has been revoked since; ` +
        "the platform answered with that run's stored answer, whose key no longer works; " +
        'to make a new API key, run the command without --idempotency-key (or with a new key)\n',
    });
    expect(existsSync(file)).toBe(false);
  });
});

describe('a creation with a one-time secret whose every answer is lost', () => {
  it.each([
    [
      'webhooks create',
      '/v1/webhooks',
      ['webhooks', 'create', '--url', 'https://h.example/lost', '--event-type', 'webhook.test'],
      'webhook',
      'secret',
    ],
    [
      'tenants api-keys create',
      `/v1/tenants/${ACME}/api-keys`,
      ['tenants', 'api-keys', 'create', ACME, '--kind', 'publishable'],
      'API key',
      'the key',
    ],
  ])('svc %s names the key that gets the same answer again', async (_name, path, argv, noun, secret) => {
    lost.lose(path, 99);
    const file = join(files, `lost-${++runs}`);
    const env = { env: { SVC_BASE_URL: lost.proxy().url, SVC_MAX_RETRIES: '1' } };
    const r = await svc.run([...argv, '--secret-file', file], env);
    expect([r.code, r.stdout]).toEqual([1, '']);
    const key = /--idempotency-key (svc_[0-9a-f-]{36}) /.exec(r.stderr)?.[1];
    expect(r.stderr).toBe(
      'error: injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change (HTTP 503, service_unavailable); ' +
        `re-run with --idempotency-key ${key} to get the same answer, ${secret} included, without creating a second ${noun} (the platform keeps it for 24 hours)\n`,
    );
    expect(existsSync(file)).toBe(false);

    lost.stop();
    const again = await svc.run([...argv, '--secret-file', file, '--idempotency-key', key!]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('was already created by an earlier run with this idempotency key');
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^(whsec_|svc_pk_)/);
  });
});
