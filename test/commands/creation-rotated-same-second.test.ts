/**
 * A creation's idempotency key run again after another admin rotated the new object's secret in
 * the creation's own second (brief s29 fixrot 2): whole-second times read the rotation back as the
 * creation's time, which the time rule took as "no rotation since" and wrote the dead secret. The
 * rotations' evidence decides for creations too (storedSecretNow, one rule): an OAuth client's
 * secret_last4, a webhook's secrets rotated out then: exit 6, nothing written. A server without
 * either keeps the time rule (written). The sandbox's clock stands still, so every request here is
 * in one second whatever the machine's load.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as } from '../helpers/ascode.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { ACME, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const frozen = Math.floor(Date.now() / 1000) * 1000 + 500;
const svc = useSandboxContext({ baseClock: () => frozen });
const files = useTempDir('svc-creation-rotated-same-second-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
/** A server whose records carry no secret_last4 / secret_sha256_prefix / previous_secrets (as the reference); its replay marker kept. */
const plain = useLossyProxy(svc.sandbox, {
  lose: () => false,
  reshape: (_method, path, status, text, headers) => {
    if (!/^\/v1\/(oauth\/clients|webhooks)/.test(path) || !text.startsWith('{')) return undefined;
    const {
      secret_last4: _last4,
      secret_sha256_prefix: _prefix,
      previous_secrets: _previous,
      ...body
    } = JSON.parse(text);
    const kept = Object.entries(headers).filter(
      (h): h is [string, string] =>
        ['date', 'idempotent-replayed'].includes(h[0].toLowerCase()) && typeof h[1] === 'string',
    );
    return { status, body: JSON.stringify(body), headers: Object.fromEntries(kept) };
  },
});
const at = { clock: { now: () => frozen } };
let runs = 0;

const CASES = [
  {
    noun: 'OAuth client',
    secret: 'secret',
    args: (n: number) => [
      ...['oauth', 'create', '--name', `created-${n}`, '--redirect-uri', 'https://app.example/cb'],
      ...['--scope', 'read:reconciliations'],
    ],
    rotate: (id: string) => `/v1/oauth/clients/${id}/rotate-secret`,
    remedy: (id: string) => `svc oauth rotate-secret ${id} --secret-file PATH --yes`,
    idOf: (body: Record<string, string>) => body.client_id!,
  },
  {
    noun: 'webhook',
    secret: 'signing secret',
    args: (n: number) => [
      'webhooks',
      'create',
      '--url',
      `https://h.example/created-${n}`,
      '--event-type',
      'webhook.test',
    ],
    rotate: (id: string) => `/v1/webhooks/${id}/rotate-secret`,
    remedy: (id: string) => `svc webhooks rotate-secret ${id} --secret-file PATH`,
    idOf: (body: Record<string, string>) => body.id!,
  },
] as const;

describe.each(CASES)(
  '$noun created with a key, run again',
  ({ noun, secret, args, rotate, remedy, idOf }) => {
    async function create(env?: Record<string, string>) {
      const key = `created-same-${++runs}`;
      const argv = [...args(runs), '--idempotency-key', key];
      const first = join(files, `first-${runs}`);
      const r = await svc.run([...argv, '--secret-file', first, '--json'], {
        ...at,
        ...(env ? { env } : {}),
      });
      expect(r.code, r.stderr).toBe(0);
      return { key, argv, first, id: idOf(JSON.parse(r.stdout)) };
    }

    it('rotated by another admin in the creation’s second: the stale secret is not written, exit 6', async () => {
      const { key, argv, id } = await create();
      await as(svc.sandbox(), ACME, 'POST', rotate(id), {});
      const again = join(files, `again-${runs}`);
      const r = await svc.run([...argv, '--secret-file', again], at);
      const second = new Date(frozen).toISOString().replace(/\.\d+Z$/, 'Z');
      expect([r.code, r.stdout]).toEqual([6, '']);
      expect(r.stderr).toBe(
        `error: ${noun} ${id} was created by an earlier run with idempotency key ${key}, and its ${secret} was rotated since (${second}): ` +
          `the ${secret} in the platform's stored answer no longer works, so svc neither prints nor writes it; ` +
          `the ${secret} of the rotation is the ${noun === 'webhook' ? 'webhook' : 'client'}'s; if it is lost, get a new one with: ${remedy(id)}\n`,
      );
      expect(existsSync(again)).toBe(false);
    });

    it('not rotated: the stored secret is written', async () => {
      const { argv, first } = await create();
      const again = join(files, `again-${runs}`);
      const r = await svc.run([...argv, '--secret-file', again], at);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(again, 'utf8')).toBe(readFileSync(first, 'utf8'));
    });

    it('a server with no evidence of the secret: the time rule, written as before', async () => {
      const env = { SVC_BASE_URL: plain().url };
      const { argv, first, id } = await create(env);
      await as(svc.sandbox(), ACME, 'POST', rotate(id), {});
      const again = join(files, `again-${runs}`);
      const r = await svc.run([...argv, '--secret-file', again], { ...at, env });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(again, 'utf8')).toBe(readFileSync(first, 'utf8'));
    });
  },
);
