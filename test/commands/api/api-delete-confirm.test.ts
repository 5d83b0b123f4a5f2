/**
 * `svc api DELETE` is a destructive action like `webhooks delete` (attack26a F12; the contract:
 * `--yes` "required for them when stdin is not a TTY"): off a terminal without --yes it is refused
 * before anything is sent, exit 2; with --yes it is sent; on a terminal it asks, naming the path
 * and the tenant (read from GET /v1/me, its only request), and a No sends nothing else. Other methods are not asked about, but the POST `oauth rotate-secret`
 * sends, which that verb asks before too (brief fixlists 3).
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
    expect(questions).toEqual([`Send DELETE /v1/webhooks/${id} in Acme Treasury (acme-treasury)?`]);
    expect(stderr()).toBe('');
    // The question's one read: GET /v1/me, for the tenant's name (api-question-where.test.ts).
    expect(await requestCount(svc.sandbox())).toBe(before + 1);
    expect((await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).status).toBe(200);
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
    expect(questions).toEqual([`Send DELETE ${shown} in Acme Treasury (acme-treasury)?`]);
    expect(shown).toBe('/v1/webhooks/[redacted]?soft_delete=false&token=[redacted]&reason=cleanup');
    expect(shown).toContain('soft_delete=false');
    expect(shown).toContain('reason=cleanup');
    expect(shown).not.toContain(key.slice(12));
    expect(shown).not.toContain('s3cr3t-value');
    expect(await requestCount(svc.sandbox())).toBe(before + 1); // the question's GET /v1/me
  });
});

describe("svc api POST to an OAuth client's rotate-secret (brief fixlists 3)", () => {
  // `oauth rotate-secret` asks (the current secret stops working at once): the raw call did not,
  // and a pipe rotated a client's secret unasked, the old one dead at once.
  const client = async () => {
    const r = await svc.run([
      ...['oauth', 'create', '--name', `rot-${Math.random().toString(36).slice(2)}`],
      ...[
        '--redirect-uri',
        'https://example.com/cb',
        '--scope',
        'read:exceptions',
        '--show-secret',
        '--json',
      ],
    ]);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { client_id: string }).client_id;
  };

  it('off a terminal without --yes: refused, exit 2, nothing sent; with --yes: rotated', async () => {
    const id = await client();
    const before = await requestCount(svc.sandbox());
    expect(await svc.run(['api', 'POST', `/v1/oauth/clients/${id}/rotate-secret`])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: sending POST /v1/oauth/clients/${id}/rotate-secret needs confirmation; pass --yes to confirm non-interactively\n`,
    });
    // With a trailing slash too (a server may route it so).
    const slash = await svc.run(['api', 'POST', `/v1/oauth/clients/${id}/rotate-secret/`]);
    expect([slash.code, slash.stderr]).toEqual([
      2,
      `error: sending POST /v1/oauth/clients/${id}/rotate-secret/ needs confirmation; pass --yes to confirm non-interactively\n`,
    ]);
    expect(await requestCount(svc.sandbox())).toBe(before);
    const done = await svc.run(['api', 'POST', `/v1/oauth/clients/${id}/rotate-secret`, '--yes', '--json']);
    expect([done.code, done.stderr]).toEqual([0, '']);
    expect(JSON.parse(done.stdout)).toMatchObject({ client_id: id });
  });

  it('on a terminal: asks, naming the path and what it does; No sends nothing', async () => {
    const id = await client();
    const { ctx, stderr, questions } = svc.context({ tty: true, answers: [false] });
    const before = await requestCount(svc.sandbox());
    await expect(runApi(ctx, parseApi('POST', `/v1/oauth/clients/${id}/rotate-secret`, {}))).rejects.toThrow(
      'cancelled; nothing was changed',
    );
    expect(questions).toEqual([
      `Send POST /v1/oauth/clients/${id}/rotate-secret in Acme Treasury (acme-treasury)? It rotates the client's secret: the current one stops working at once.`,
    ]);
    expect(stderr()).toBe('');
    expect(await requestCount(svc.sandbox())).toBe(before + 1); // the question's GET /v1/me
  });

  // review29b M3: the URL svc sends turns `\` into `/`, so these reached rotate-secret unasked.
  it('spelled otherwise but reaching it (backslashes, an escaped letter, another case): refused alike, nothing sent', async () => {
    const id = await client();
    const before = await requestCount(svc.sandbox());
    for (const path of [
      `/v1/oauth/clients/${id}\\rotate-secret`,
      `/v1/oauth\\clients\\${id}\\rotate-secret`,
      `/v1/oauth/clients/${id}/rotate%2Dsecret`,
      `/V1/OAuth/Clients/${id}/Rotate-Secret`,
    ]) {
      expect(await svc.run(['api', 'POST', path])).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: sending POST ${path} needs confirmation; pass --yes to confirm non-interactively\n`,
      });
    }
    expect(await requestCount(svc.sandbox())).toBe(before);
    const now = await svc.run(['oauth', 'get', id, '--json']);
    expect(JSON.parse(now.stdout).secret_rotated_at).toBeNull();
  });

  it("another POST, and a webhook's rotation (its verb asks nothing either), are not asked about", async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/api-rotate');
    const r = await svc.run(['api', 'POST', `/v1/webhooks/${id}/rotate-secret`, '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
  });
});
