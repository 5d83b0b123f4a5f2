/**
 * A rotation's idempotency key run again after another admin rotated the same secret in the same
 * second (attack28b F2): the platform's rotation times are whole seconds, so they cannot tell the
 * two rotations apart. Other evidence decides — an OAuth client's secret asked of the token
 * endpoint, a webhook's secrets rotated out in that second — and the stored answer's secret, no
 * longer the current one, is neither written nor called current (exit 6). The sandbox's clock
 * stands still, so every rotation here is in one second whatever the machine's load.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as } from '../helpers/ascode.js';
import { ACME, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const frozen = Math.floor(Date.now() / 1000) * 1000 + 500;
const svc = useSandboxContext({ baseClock: () => frozen });
const files = useTempDir('svc-rotation-same-second-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
const at = { clock: { now: () => frozen } };
let runs = 0;

async function made(noun: 'oauth' | 'webhook'): Promise<string> {
  const r =
    noun === 'oauth'
      ? await svc.run(
          [
            ...['oauth', 'create', '--name', `same-${++runs}`, '--redirect-uri', 'https://app.example/cb'],
            ...['--scope', 'read:reconciliations', '--show-secret', '--json'],
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
  it.each(CASES)('%s: the stored secret is not written, exit 6', async (noun, what, path) => {
    const id = await made(noun);
    const group = noun === 'oauth' ? 'oauth' : 'webhooks';
    const first = join(files, `first-${++runs}.secret`);
    const key = `same-second-${runs}`;
    const rotate = (file: string) =>
      svc.run([group, 'rotate-secret', id, '--yes', '--secret-file', file, '--idempotency-key', key], at);
    const r = await rotate(first);
    expect(r.code, r.stderr).toBe(0);
    // Another admin rotates it, in the same second.
    await as(svc.sandbox(), ACME, 'POST', path(id), {});
    const again = join(files, `again-${++runs}.secret`);
    const late = await rotate(again);
    expect([late.code, late.stdout]).toEqual([6, '']);
    const second = new Date(frozen).toISOString().replace(/\.\d+Z$/, 'Z');
    const command = `svc ${group} rotate-secret ${id} --secret-file ${again}${noun === 'oauth' ? ' --yes' : ''}`;
    expect(late.stderr).toBe(
      `error: the rotation with idempotency key ${key} was made by an earlier run, and ${what} ${id}'s secret was rotated again in the same second (${second}): ` +
        'the secret in that answer is not the current one, so svc neither prints nor writes it; ' +
        `get a working secret with a new rotation (it ends the secret in use, whoever holds it): ${command}\n`,
    );
    expect(existsSync(again)).toBe(false);
  });

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
