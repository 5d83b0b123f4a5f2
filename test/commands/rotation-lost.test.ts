/**
 * `svc oauth rotate-secret` and `svc webhooks rotate-secret` whose every answer is lost (a
 * Ctrl-C or a dropped connection after the request was sent): the error says the secret in use
 * may already be replaced and names the --idempotency-key that gets the new secret back from the
 * platform's stored answer; rotated again since, that stored secret is not written (crash14 2).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useLostCreations } from '../helpers/lossy-proxy.js';
import { advanceClock, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-rotation-lost-');
afterAll(() => rmSync(files, { recursive: true, force: true }));

const lost = useLostCreations(svc.sandbox);
let runs = 0;

async function client(): Promise<string> {
  const r = await svc.run([
    ...['oauth', 'create', '--name', `rot-${++runs}`, '--redirect-uri', 'https://app.example/cb'],
    ...['--scope', 'read:reconciliations', '--show-secret', '--json'],
  ]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).client_id;
}

async function webhook(): Promise<string> {
  const r = await svc.run([
    ...['webhooks', 'create', '--url', `https://h.example/rot-${++runs}`, '--event-type', 'webhook.test'],
    ...['--show-secret', '--json'],
  ]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id;
}

const KEY = /--idempotency-key (svc_[0-9a-f-]{36}) /;

describe('a rotation whose every answer is lost', () => {
  it('svc oauth rotate-secret says the old secret may have stopped and names the key that gets the new one', async () => {
    const id = await client();
    lost.lose(`/v1/oauth/clients/${id}/rotate-secret`, 99);
    const file = join(files, `c-${++runs}.secret`);
    const env = { env: { SVC_BASE_URL: lost.proxy().url, SVC_MAX_RETRIES: '1' } };
    const r = await svc.run(['oauth', 'rotate-secret', id, '--yes', '--secret-file', file], env);
    expect([r.code, r.stdout]).toEqual([1, '']);
    const key = KEY.exec(r.stderr)?.[1];
    expect(r.stderr).toBe(
      'error: injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change (HTTP 503, service_unavailable); ' +
        `OAuth client ${id}'s current secret may already have stopped working; re-run with: svc oauth rotate-secret ${id} --idempotency-key ${key} --secret-file ${file} --yes ` +
        'to get the new secret without rotating again (the platform keeps it for 24 hours)\n',
    );
    expect(existsSync(file)).toBe(false);

    lost.stop();
    const rotatedAt = JSON.parse((await svc.run(['oauth', 'get', id, '--json'])).stdout).secret_rotated_at;
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
    expect(again.stderr.split('\n')[0]).toBe(
      `OAuth client ${id}'s secret was already rotated by an earlier run with this idempotency key: this is the platform's stored answer, and its secret is still the current one`,
    );
    // The rotation was not made twice: the client's rotation time is the lost one's.
    expect(JSON.parse((await svc.run(['oauth', 'get', id, '--json'])).stdout).secret_rotated_at).toBe(
      rotatedAt,
    );
    expect(readFileSync(file, 'utf8')).toMatch(/^\S+$/);

    // Rotated again since (a later second: the platform's times are in seconds): the stored
    // answer's secret is not the current one, and is not written.
    await advanceClock(svc.sandbox(), 5);
    expect((await svc.run(['oauth', 'rotate-secret', id, '--yes', '--show-secret', '--json'])).code).toBe(0);
    const stale = join(files, `c-${++runs}.secret`);
    const late = await svc.run([
      'oauth',
      'rotate-secret',
      id,
      '--yes',
      '--secret-file',
      stale,
      '--idempotency-key',
      key!,
    ]);
    expect(late.code).toBe(6);
    expect(late.stderr).toMatch(
      new RegExp(
        `^error: the rotation with idempotency key ${key} was made by an earlier run, and OAuth client ${id}'s secret was rotated again since \\(.+\\): ` +
          "the secret in the platform's stored answer is not the current one, so svc neither prints nor writes it; " +
          `get a new one with: svc oauth rotate-secret ${id} --secret-file ${stale} --yes\\n$`,
      ),
    );
    expect(existsSync(stale)).toBe(false);
  });

  it('svc webhooks rotate-secret names the key that gets the same new signing secret', async () => {
    const id = await webhook();
    lost.lose(`/v1/webhooks/${id}/rotate-secret`, 99);
    const env = { env: { SVC_BASE_URL: lost.proxy().url, SVC_MAX_RETRIES: '1' } };
    const r = await svc.run(['webhooks', 'rotate-secret', id, '--show-secret'], env);
    expect([r.code, r.stdout]).toEqual([1, '']);
    const key = KEY.exec(r.stderr)?.[1];
    expect(r.stderr).toBe(
      'error: injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change (HTTP 503, service_unavailable); ' +
        `webhook ${id}'s signing secret may already have been rotated out (it signs for 24 hours more); re-run with: svc webhooks rotate-secret ${id} --idempotency-key ${key} --show-secret ` +
        'to get the new secret without rotating again (the platform keeps it for 24 hours)\n',
    );
    lost.stop();
    const again = await svc.run([
      'webhooks',
      'rotate-secret',
      id,
      '--show-secret',
      '--json',
      '--idempotency-key',
      key!,
    ]);
    expect(again.code, again.stderr).toBe(0);
    const shown = JSON.parse(again.stdout);
    const twice = await svc.run([
      'webhooks',
      'rotate-secret',
      id,
      '--show-secret',
      '--json',
      '--idempotency-key',
      key!,
    ]);
    expect(JSON.parse(twice.stdout).secret).toBe(shown.secret);
    // One rotation, not two: a single secret rotated out still signs.
    expect(shown.previous_secrets ?? []).toHaveLength(1);
  });
});
