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
      stderr: `error: sending DELETE /v1/webhooks/${id} needs confirmation; pass --yes to confirm non-interactively\n`,
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
});
