/**
 * `svc oauth create` answered from the platform's stored answer to its idempotency key: a re-run
 * with the same --idempotency-key (the client may have been deleted, its secret rotated or its
 * fields updated since), and a creation whose every answer was lost (the error names the key that
 * gets the answer, secret included, again).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useLostCreations } from '../../helpers/lossy-proxy.js';
import { ACME, advanceClock, call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-oauth-replayed-');
afterAll(() => rmSync(files, { recursive: true, force: true }));

const lost = useLostCreations(svc.sandbox);

let runs = 0;
/** A create command line with its own name and key. */
function creation(name = `replayed-${++runs}`) {
  const key = `replay-key-${runs}-${Date.now()}`;
  const argv = [
    ...['oauth', 'create', '--name', name, '--redirect-uri', 'https://r.example/cb'],
    ...['--scope', 'read:exceptions', '--idempotency-key', key],
  ];
  return { argv, key, name };
}

async function clientsNamed(name: string): Promise<number> {
  const sandbox = svc.sandbox();
  const answer = await call(sandbox, 'GET', '/v1/oauth/clients', {
    token: sandbox.adminToken,
    tenant: ACME,
  });
  const list = answer.body as { items: { name: string }[] };
  return list.items.filter((c) => c.name === name).length;
}

describe('svc oauth create --idempotency-key K, run again', () => {
  it('after a rotation: neither prints nor writes the dead secret, says so and names rotate-secret (exit 6)', async () => {
    const { argv, key } = creation();
    const first = await svc.run([...argv, '--show-secret', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const made = JSON.parse(first.stdout);
    // Rotated a later second than the creation (the sandbox's times are in seconds): one read back
    // as the creation's own second is no rotation since (review19 F4).
    await advanceClock(svc.sandbox(), 2);
    const rotated = await svc.run([
      'oauth',
      'rotate-secret',
      made.client_id,
      '--yes',
      '--show-secret',
      '--json',
    ]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const rotatedAt = JSON.parse(rotated.stdout).secret_rotated_at;

    const file = join(files, `${key}.secret`);
    for (const extra of [['--secret-file', file], ['--json', '--show-secret'], ['--show-secret']]) {
      const r = await svc.run([...argv, ...extra]);
      expect([r.code, r.stdout]).toEqual([6, '']);
      const line =
        `OAuth client ${made.client_id} was created by an earlier run with idempotency key ${key}, and its secret was rotated since (${rotatedAt}): ` +
        "the secret in the platform's stored answer no longer works, so svc neither prints nor writes it";
      const hint = `the secret of the rotation is the client's; if it is lost, get a new one with: svc oauth rotate-secret ${made.client_id} --secret-file PATH --yes`;
      if (extra[0] === '--json') {
        expect(JSON.parse(r.stderr).error).toEqual({
          code: 'secret_rotated',
          message: line,
          hint,
          exit_code: 6,
        });
      } else {
        expect(r.stderr).toBe(`error: ${line}; ${hint}\n`);
      }
      expect(r.stdout + r.stderr).not.toContain(made.client_secret);
    }
    expect(existsSync(file)).toBe(false);
  });

  it('after a delete: says the client is gone, writes nothing (exit 5)', async () => {
    const { argv, key } = creation();
    const first = await svc.run([...argv, '--show-secret', '--json']);
    const made = JSON.parse(first.stdout);
    expect((await svc.run(['oauth', 'delete', made.client_id, '--yes'])).code).toBe(0);

    const file = join(files, `${key}.secret`);
    const r = await svc.run([...argv, '--secret-file', file]);
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr:
        `error: OAuth client ${made.client_id} was created by an earlier run with idempotency key ${key} and has been deleted since; ` +
        "the platform answered with that run's stored answer, whose secret no longer works; " +
        'to make a new client, run the command without --idempotency-key (or with a new key)\n',
    });
    expect(existsSync(file)).toBe(false);
  });

  it('after an update: the client as it is now, its still valid secret, and that it was made before', async () => {
    const { argv, key } = creation('before');
    const made = JSON.parse((await svc.run([...argv, '--show-secret', '--json'])).stdout);
    const updated = await svc.run([
      'oauth',
      'update',
      made.client_id,
      '--name',
      'after',
      '--scope',
      'read:tenants',
    ]);
    expect(updated.code, updated.stderr).toBe(0);

    const file = join(files, `${key}.secret`);
    const r = await svc.run([...argv, '--secret-file', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`client id\t${made.client_id}\nname\tafter\n`);
    expect(r.stdout).toContain('\nscopes\tread:tenants\n');
    expect(r.stdout).toContain(`\nclient secret\twritten to ${file} (mode 0600)\n`);
    expect(r.stderr).toBe(
      `OAuth client ${made.client_id} was already created by an earlier run with this idempotency key: this is the platform's stored answer, with the client as it is now\n` +
        `the client secret is in ${file}; it is not shown again\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe(made.client_secret);

    const json = JSON.parse((await svc.run([...argv, '--show-secret', '--json'])).stdout);
    expect(json).toEqual({ ...made, name: 'after', scopes: ['read:tenants'], replayed: true });
    expect(await clientsNamed('before')).toBe(0);
    expect(await clientsNamed('after')).toBeGreaterThanOrEqual(1);
  });
});

describe('svc oauth create whose answer is lost', () => {
  it('names the key that gets the same answer, secret included; that re-run makes no second client', async () => {
    const name = `lost-${Date.now()}`;
    lost.lose('/v1/oauth/clients', 99);
    const argv = [
      ...['oauth', 'create', '--name', name, '--redirect-uri', 'https://l.example/cb'],
      ...['--scope', 'read:exceptions'],
    ];
    const file = join(files, `${name}.secret`);
    const env = { env: { SVC_BASE_URL: lost.proxy().url, SVC_MAX_RETRIES: '1' } };
    const r = await svc.run([...argv, '--secret-file', file], env);
    expect([r.code, r.stdout]).toEqual([1, '']);
    const key = /--idempotency-key (svc_[0-9a-f-]{36}) /.exec(r.stderr)?.[1];
    expect(r.stderr).toBe(
      'error: injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change (HTTP 503, service_unavailable); ' +
        `re-run with --idempotency-key ${key} to get the same answer, secret included, without creating a second client (the platform keeps it for 24 hours)\n`,
    );
    expect(existsSync(file)).toBe(false);
    expect(await clientsNamed(name)).toBe(1);

    const json = await svc.run([...argv, '--show-secret', '--json'], env);
    expect(json.code).toBe(1);
    const jsonKey = /--idempotency-key (svc_[0-9a-f-]{36}) /.exec(JSON.parse(json.stderr).error.hint)?.[1];
    expect(jsonKey).toMatch(/^svc_/);
    expect(jsonKey).not.toBe(key);
    expect(await clientsNamed(name)).toBe(2);

    lost.stop();
    const again = await svc.run([...argv, '--secret-file', file, '--idempotency-key', key!]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /^OAuth client cli_\w+ was already created by an earlier run with this idempotency key/,
    );
    expect(readFileSync(file, 'utf8')).toMatch(/^svc_cs_/);
    expect(await clientsNamed(name)).toBe(2);
  });

  it('a retry answered from its own lost attempt is this run\'s creation: no "earlier run"', async () => {
    const name = `retried-${Date.now()}`;
    lost.lose('/v1/oauth/clients', 1);
    const file = join(files, `${name}.secret`);
    const r = await svc.run(
      [
        ...['oauth', 'create', '--name', name, '--redirect-uri', 'https://l.example/cb'],
        ...['--scope', 'read:exceptions', '--secret-file', file, '--idempotency-key', `k-${name}`],
      ],
      { env: { SVC_BASE_URL: lost.proxy().url } },
    );
    expect(r.code, r.stderr).toBe(0);
    const id = /^client id\t(cli_\w+)$/m.exec(r.stdout)![1]!;
    expect(r.stderr).toBe(
      `✓ created OAuth client ${name} (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016; its client secret is in ${file} (mode 0600), not shown again\n`,
    );
    expect(await clientsNamed(name)).toBe(1);
  });
});
