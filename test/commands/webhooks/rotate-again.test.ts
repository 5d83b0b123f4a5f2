/**
 * `svc webhooks rotate-secret` a second time within 24 hours says which old secret signs until
 * when: the first old one keeps its promise (finding s10 receiver 4), and a refusal at the
 * platform's limit says when to try again.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_PREVIOUS_SECRETS } from '../../../src/sandbox/domain/webhooks.js';
import { ACME, advanceClock, call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { admin, createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const dir = useTempDir('svc-rotate-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const rotate = (id: string) =>
  svc.run(['webhooks', 'rotate-secret', id, '--secret-file', join(dir, `s${++files}`)]);
const advance = (seconds: number) => advanceClock(svc.sandbox(), seconds);
const webhook = async (id: string) => (await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).body;

describe('svc webhooks rotate-secret, again within 24 hours', () => {
  it('names every old secret that still signs, each until the time its rotation promised', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/again');
    const first = await rotate(id);
    expect(first.code, first.stderr).toBe(0);
    const t1 = (await webhook(id)).previous_secret_expires_at;
    expect(first.stderr).toBe(
      `✓ rotated the signing secret of webhook ${id} in ${ACME}; its signing secret is in ${join(dir, `s${files}`)} (mode 0600), not shown again\n` +
        `deliveries carry a signature with the previous secret too until ${t1}: switch the receiver before then\n`,
    );
    await advance(3600);
    const second = await rotate(id);
    expect(second.code, second.stderr).toBe(0);
    const w = await webhook(id);
    expect(second.stderr).toBe(
      `✓ rotated the signing secret of webhook ${id} in ${ACME}; its signing secret is in ${join(dir, `s${files}`)} (mode 0600), not shown again\n` +
        `deliveries carry a signature with the previous secret too until ${w.previous_secret_expires_at}: switch the receiver before then\n` +
        `the secret rotated out before it (at ${w.previous_secrets[1].rotated_out_at}) still signs until ${t1}, as its rotation said\n`,
    );
    await advance(3600);
    const third = await rotate(id);
    const [last, t2] = [(await webhook(id)).previous_secret_expires_at, w.previous_secret_expires_at];
    expect(third.stderr.split('\n').slice(1)).toEqual([
      `deliveries carry a signature with the previous secret too until ${last}: switch the receiver before then`,
      'the 2 secrets rotated out before it still sign until the times their rotations said: ' +
        `the one rotated out at ${w.secret_rotated_at} until ${t2}, the one rotated out at ${w.previous_secrets[1].rotated_out_at} until ${t1}`,
      '',
    ]);
  });

  // Review s10 b, 8: `get` named only the newest old secret; --json listed every one.
  it('webhooks get names every old secret that still signs, each with its own expiry, never the secret', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/get');
    expect((await rotate(id)).code).toBe(0);
    await advance(3600);
    expect((await rotate(id)).code).toBe(0);
    const w = await webhook(id);
    const [newest, older] = w.previous_secrets;
    const plain = await svc.run(['webhooks', 'get', id]);
    expect([plain.code, plain.stderr]).toEqual([0, '']);
    expect(plain.stdout.split('\n').slice(-7)).toEqual([
      `secret rotated\t${w.secret_rotated_at}`,
      `previous secret until\t${newest.expires_at}`,
      `previous secrets\tuntil ${newest.expires_at} (rotated out ${newest.rotated_out_at}); ` +
        `until ${older.expires_at} (rotated out ${older.rotated_out_at})`,
      'owner\tusr_admin',
      'disabled because\t',
      'secret at risk\t',
      '',
    ]);
    const tty = await svc.run(['webhooks', 'get', id], { tty: { stdout: true }, now: Date.now() });
    expect(tty.stdout).toContain(
      `previous secrets       until ${newest.expires_at} (rotated out ${newest.rotated_out_at}); ` +
        `until ${older.expires_at} (rotated out ${older.rotated_out_at})\n`,
    );
    const json = JSON.parse((await svc.run(['webhooks', 'get', id, '--json'])).stdout);
    expect(json.previous_secrets).toEqual(w.previous_secrets);
    const secrets = (await call(svc.sandbox(), 'GET', `/_sandbox/webhooks/${id}/secret`)).body;
    for (const out of [plain.stdout, tty.stdout]) {
      expect(out).not.toContain('whsec_');
      expect(out).not.toContain(secrets.previous_secret);
    }
  });

  it('at the limit, says how many old secrets sign and until when, and changes nothing', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/limit');
    for (let i = 0; i < MAX_PREVIOUS_SECRETS; i++) expect((await rotate(id)).code).toBe(0);
    const before = await webhook(id);
    const refused = await rotate(id);
    expect([refused.code, refused.stdout]).toEqual([6, '']);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^error: webhook ${id} already has ${MAX_PREVIOUS_SECRETS} secrets rotated out that still sign, the most it keeps ` +
          `\\(the oldest until ${before.previous_secrets.at(-1).expires_at}\\): rotate again after then, or undo the last rotation with restore-secret`,
      ),
    );
    expect(await webhook(id)).toEqual(before);
  });
});
