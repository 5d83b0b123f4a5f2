/**
 * `svc api DELETE` is a destructive action like `webhooks delete` (attack26a F12; the contract:
 * `--yes` "required for them when stdin is not a TTY"): off a terminal without --yes it is refused
 * before anything is sent, exit 2; with --yes it is sent; on a terminal it asks, naming the path,
 * and a No sends nothing. Other methods are not asked about.
 */
import { describe, expect, it } from 'vitest';
import { parseApi, runApi } from '../../../src/commands/api/index.js';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';
import { admin, createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();

describe('svc api DELETE', () => {
  it('off a terminal without --yes: refused, exit 2, nothing sent; with --yes: deleted', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/api-delete');
    const before = await requestCount(svc.sandbox());
    expect(await svc.run(['api', 'DELETE', `/v1/webhooks/${id}?x=1`])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: sending DELETE /v1/webhooks/${id}?x=1 needs confirmation; pass --yes to confirm non-interactively\n`,
    });
    expect(await requestCount(svc.sandbox())).toBe(before);
    expect((await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).status).toBe(200);
    const done = await svc.run(['api', 'DELETE', `/v1/webhooks/${id}`, '--yes', '--json']);
    expect([done.code, done.stderr]).toEqual([0, '']);
    expect(JSON.parse(done.stdout)).toMatchObject({ id, deleted: true });
  });

  it('on a terminal: asks, naming the path; No sends nothing (exit 2, cancelled)', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/api-delete-tty');
    const { ctx, stderr, questions } = svc.context({ tty: true, answers: [false] });
    const before = await requestCount(svc.sandbox());
    await expect(runApi(ctx, parseApi('DELETE', `/v1/webhooks/${id}`, {}))).rejects.toThrow(
      'cancelled; nothing was changed',
    );
    expect(questions).toEqual([`Send DELETE /v1/webhooks/${id}?`]);
    expect(stderr()).toBe('');
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('a GET is not asked about', async () => {
    const r = await svc.run(['api', 'GET', '/v1/me']);
    expect([r.code, r.stderr]).toEqual([0, '']);
  });

  it('the question shows the path masked as the refusal is, and its query, which decides what the DELETE does (review27a F7)', async () => {
    const key = `svc_sk_live_${'a1B2c3D4'.repeat(4)}`;
    const path = `/v1/webhooks/${key}?soft_delete=false&token=s3cr3t-value`;
    const { ctx, questions } = svc.context({ tty: true, answers: [false] });
    const before = await requestCount(svc.sandbox());
    await expect(runApi(ctx, parseApi('DELETE', path, { rawField: ['reason=cleanup'] }))).rejects.toThrow(
      'cancelled; nothing was changed',
    );
    const refused = await svc.run(['api', 'DELETE', path, '-f', 'reason=cleanup']);
    expect(refused.code).toBe(2);
    const shown = /^error: sending DELETE (\S+) needs confirmation/.exec(refused.stderr)![1]!;
    expect(questions).toEqual([`Send DELETE ${shown}?`]);
    expect(shown).toBe('/v1/webhooks/[redacted]?soft_delete=false&token=[redacted]&reason=cleanup');
    expect(shown).toContain('soft_delete=false');
    expect(shown).toContain('reason=cleanup');
    expect(shown).not.toContain(key.slice(12));
    expect(shown).not.toContain('s3cr3t-value');
    expect(await requestCount(svc.sandbox())).toBe(before);
  });
});
