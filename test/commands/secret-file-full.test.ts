/**
 * A --secret-file that cannot take the secret once it has arrived (a disk that filled up after
 * the file was made): the client, webhook or key exists (or the rotation was made), so svc says
 * what was made, that the secret was not saved, and the one way to get it: the same command
 * under the idempotency key svc sent, which the platform answers with the same secret (review16
 * R1). Never "a bug in svc". The file is not left behind.
 */
import { existsSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACME, call, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-secret-full-');
afterAll(() => rmSync(files, { recursive: true, force: true }));

/** The prototype every FileHandle shares (node:fs/promises does not export the class). */
let handles: FileHandle;
beforeAll(async () => {
  const probe = join(files, 'probe');
  writeFileSync(probe, '');
  const handle = await open(probe, 'r');
  handles = Object.getPrototypeOf(handle);
  await handle.close();
});

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
/** Whether a handle is of a file under the test's directory (Linux: its /proc/self/fd link). */
const ours = (handle: FileHandle) => readlinkSync(`/proc/self/fd/${handle.fd}`).startsWith(files);

/**
 * A disk that fills up between making the secret file and writing the secret into it (`after`):
 * a handle's writeFile to a file under the test's directory fails with ENOSPC; or one that is
 * full already (`before`): its write fails too, svc's proof of room before sending. The spies are
 * restored after each test (no module is mocked: test files share a worker's modules).
 */
function fillDisk(when: 'before' | 'after'): void {
  const { write, writeFile } = handles;
  vi.spyOn(handles, 'writeFile').mockImplementation(function (this: FileHandle, ...args) {
    if (ours(this)) return Promise.reject(enospc());
    return writeFile.apply(this, args);
  });
  if (when === 'before') {
    vi.spyOn(handles, 'write').mockImplementation(function (this: FileHandle, ...args: unknown[]) {
      if (ours(this)) return Promise.reject(enospc());
      return (write as (...a: unknown[]) => ReturnType<FileHandle['write']>).apply(this, args);
    } as FileHandle['write']);
  }
}
const roomMade = () => vi.restoreAllMocks();
afterEach(roomMade);

const admin = (method: string, path: string) =>
  call(svc.sandbox(), method, path, { token: svc.sandbox().adminToken, tenant: ACME });

/**
 * Until when the platform keeps a stored answer made at `at` (review16e E1, E7): 24 hours on less a
 * minute, to the minute, named with the time it counts from.
 */
const keptUntil = (at: string) =>
  `before ${new Date(Date.parse(at) + 86_400_000 - 60_000).toISOString().slice(0, 16)}Z (the platform's clock: it keeps the answer 24 hours from ${at})`;

const keyOf = (stderr: string) => /--idempotency-key (svc_[0-9a-f-]{36})/.exec(stderr)?.[1];

describe('--secret-file on a disk that fills up once the secret has arrived', () => {
  it('svc oauth create: says the client was created, its secret not saved, and the re-run that gets it; that re-run writes it', async () => {
    const file = join(files, 'client.secret');
    const argv = [
      ...['oauth', 'create', '--name', 'full-disk-client', '--redirect-uri', 'https://a.example/cb'],
      ...['--scope', 'read:reconciliations', '--secret-file', file],
    ];
    fillDisk('after');
    const r = await svc.run(argv);
    const clients = (await admin('GET', '/v1/oauth/clients')).body as {
      items: { client_id: string; name: string; created_at: string }[];
    };
    const made = clients.items.filter((c) => c.name === 'full-disk-client');
    expect(made).toHaveLength(1);
    const id = made[0]!.client_id;
    const key = keyOf(r.stderr);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `error: OAuth client ${id} was created, but OAuth client ${id}'s secret could not be written to ${file}: no space left on device; the secret was not saved; ` +
        `make room (or fix ${file}), then run the same command with --idempotency-key ${key} ${keptUntil(made[0]!.created_at)}: the platform answers it with the same secret, and makes nothing new ` +
        '(after that, the same command makes a second OAuth client, and says nothing of it); ' +
        `after that, get a new one with: svc oauth rotate-secret ${id} --secret-file PATH --yes\n`,
    });
    expect(existsSync(file)).toBe(false);

    roomMade();
    const again = await svc.run([...argv, '--idempotency-key', key!]);
    expect(again.code, again.stderr).toBe(0);
    // The secret alone: none of the zeros svc's proof of room wrote before sending.
    expect(readFileSync(file, 'utf8')).toMatch(/^[!-~]{8,200}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const after = (await admin('GET', '/v1/oauth/clients')).body as { items: { name: string }[] };
    expect(after.items.filter((c) => c.name === 'full-disk-client')).toHaveLength(1);
  });

  it('svc webhooks create: names the webhook made and the key', async () => {
    const file = join(files, 'hook.secret');
    fillDisk('after');
    const r = await svc.run([
      ...['webhooks', 'create', '--url', 'https://full.example/hook', '--event-type', 'exception.created'],
      ...['--secret-file', file],
    ]);
    const id = /webhook (wh_\w+) was created/.exec(r.stderr)?.[1];
    const hook = (await admin('GET', `/v1/webhooks/${id}`)).body as { created_at: string };
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `error: webhook ${id} was created, but webhook ${id}'s signing secret could not be written to ${file}: no space left on device; the secret was not saved; ` +
        `make room (or fix ${file}), then run the same command with --idempotency-key ${keyOf(r.stderr)} ${keptUntil(hook.created_at)}: the platform answers it with the same secret, and makes nothing new ` +
        '(after that, the same command makes a second webhook, and says nothing of it); ' +
        `after that, get a new one with: svc webhooks rotate-secret ${id} --secret-file PATH\n`,
    });
    expect((await admin('GET', `/v1/webhooks/${id}`)).status).toBe(200);
    expect(existsSync(file)).toBe(false);
  });

  it('svc tenants api-keys create --kind service_role: names the live key and how to revoke it', async () => {
    const file = join(files, 'sr.key');
    fillDisk('after');
    const r = await svc.run([
      ...['tenants', 'api-keys', 'create', ACME, '--kind', 'service_role', '--name', 'full-disk'],
      ...['--justification', 'testing a full disk', '--secret-file', file],
    ]);
    const id = /API key (key_\w+) of tenant/.exec(r.stderr)?.[1];
    const keys = (await admin('GET', `/v1/tenants/${ACME}/api-keys`)).body as {
      items: { id: string; created_at: string }[];
    };
    const createdAt = keys.items.find((k) => k.id === id)?.created_at;
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `error: service_role API key ${id} of tenant ${ACME} was created, but its key could not be written to ${file}: no space left on device; the secret was not saved; ` +
        `make room (or fix ${file}), then run the same command with --idempotency-key ${keyOf(r.stderr)} ${keptUntil(createdAt!)}: the platform answers it with the same secret, and makes nothing new ` +
        '(after that, the same command makes a second service_role API key, and says nothing of it); ' +
        `after that, revoke it with: svc tenants api-keys revoke ${ACME} ${id} --yes, and create another with --secret-file PATH\n`,
    });
    expect(existsSync(file)).toBe(false);
  });

  it('svc oauth rotate-secret: says the rotation was made, and the exact re-run that gets the new secret', async () => {
    const made = await svc.run([
      ...['oauth', 'create', '--name', 'full-disk-rotate', '--redirect-uri', 'https://a.example/cb'],
      ...['--scope', 'read:reconciliations', '--show-secret', '--json'],
    ]);
    const id = JSON.parse(made.stdout).client_id as string;
    const file = join(files, 'rotated.secret');
    fillDisk('after');
    const r = await svc.run(['oauth', 'rotate-secret', id, '--yes', '--secret-file', file]);
    const key = keyOf(r.stderr);
    const rotatedAt = ((await admin('GET', `/v1/oauth/clients/${id}`)).body as { secret_rotated_at: string })
      .secret_rotated_at;
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `error: OAuth client ${id}'s secret was rotated (its old secret stopped working), but the new secret could not be written to ${file}: no space left on device; the secret was not saved; ` +
        `make room (or fix ${file}), then run svc oauth rotate-secret ${id} --idempotency-key ${key} --secret-file ${file} --yes ${keptUntil(rotatedAt)}: the platform answers it with the same secret, and makes nothing new ` +
        '(after that, the same command makes a new rotation, which ends the secret in use then, and says nothing of it); ' +
        `after that, rotate again with: svc oauth rotate-secret ${id} --secret-file PATH --yes\n`,
    });
    roomMade();
    const again = await svc.run([
      'oauth',
      'rotate-secret',
      id,
      '--yes',
      '--secret-file',
      file,
      '--idempotency-key',
      key!,
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^[!-~]{8,200}$/);
  });

  it('a disk full already: refused before anything is sent (exit 2), no file left, nothing made', async () => {
    const file = join(files, 'never.secret');
    fillDisk('before');
    const r = await svc.run([
      ...['oauth', 'create', '--name', 'full-before', '--redirect-uri', 'https://a.example/cb'],
      ...['--scope', 'read:reconciliations', '--secret-file', file],
    ]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot write to --secret-file ${file}: no space left on device; make room, or choose a path on another disk; nothing was sent\n`,
    });
    expect(existsSync(file)).toBe(false);
    const clients = (await admin('GET', '/v1/oauth/clients')).body as { items: { name: string }[] };
    expect(clients.items.filter((c) => c.name === 'full-before')).toHaveLength(0);
  });
});
