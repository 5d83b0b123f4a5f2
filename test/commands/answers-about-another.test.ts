/**
 * attack26b F2, F5, F7: an answer about another object than the one asked for (a misrouting
 * gateway, a cache) was believed for webhooks and records, whose operations declared no `about`:
 * `webhooks rotate-secret W --secret-file F` wrote another webhook's secret to F and said W's was
 * there, `webhooks update W` said "✓ updated webhook <other>". Every operation whose answer names
 * the object asked for now declares it, and such an answer is refused as a grant's always was
 * (exit 1, what was asked and what came, nothing written, no ✓). Through a proxy that rewrites
 * the sandbox's answer.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Reshaped, useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';
import { createWebhook } from '../helpers/webhooks.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);
const viaProxy = (argv: string[]) => svc.run(argv, { env: { SVC_BASE_URL: proxy().url }, now: Date.now() });

/** Answers to `method` on a path matching `path` name `fields` as given instead. */
const about =
  (method: string, path: RegExp, fields: Record<string, string>, inside?: string) => (answer: Reshaped) => {
    if (answer.method !== method || !path.test(answer.path) || answer.status >= 300) return;
    const body = answer.body as Record<string, object>;
    Object.assign(inside === undefined ? body : body[inside]!, fields);
  };

/** The refusal of an answer naming `came` in `field` where `asked` was asked for. */
const refusal = (request: string, field: string, came: string, asked: string) =>
  `error: the server's answer to ${request} is about ${field} "${came}", not the ${field} "${asked}" asked for`;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('an answer about another object than the one asked for: refused (attack26b)', () => {
  it("webhooks rotate-secret: another webhook's record and secret; no secret file written (F2)", async () => {
    const w = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/w');
    const other = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/other');
    proxy().set({ reshape: about('POST', /\/rotate-secret$/, { id: other.id }) });
    const dir = tempDir('svc-about-');
    dirs.push(dir);
    const file = join(dir, 'sec.txt');
    const r = await viaProxy(['webhooks', 'rotate-secret', w.id, '--secret-file', file]);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toContain(refusal(`POST /v1/webhooks/${w.id}/rotate-secret`, 'id', other.id, w.id));
    expect(r.stderr).not.toContain('✓');
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('webhooks get, update and restore-secret (F5, F7)', async () => {
    const w = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/w');
    const other = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/other');
    proxy().set({ reshape: about('GET', /^\/v1\/webhooks\/wh_[^/]+$/, { id: other.id }) });
    const get = await viaProxy(['webhooks', 'get', w.id]);
    expect([get.code, get.stdout]).toEqual([1, '']);
    expect(get.stderr).toContain(refusal(`GET /v1/webhooks/${w.id}`, 'id', other.id, w.id));

    proxy().set({ reshape: about('PATCH', /^\/v1\/webhooks\//, { id: other.id }) });
    const update = await viaProxy(['webhooks', 'update', w.id, '--disable', '--yes']);
    expect([update.code, update.stdout]).toEqual([1, '']);
    expect(update.stderr).toContain(refusal(`PATCH /v1/webhooks/${w.id}`, 'id', other.id, w.id));
    expect(update.stderr).not.toContain('✓');

    // restore-secret (`webhooks listen`'s clean-up) through the platform client it uses.
    await svc.run(['webhooks', 'rotate-secret', w.id, '--show-secret']);
    proxy().set({ reshape: about('POST', /\/restore-secret$/, { id: other.id }) });
    const { ctx } = svc.context({ env: { SVC_BASE_URL: proxy().url } });
    const platform = await ctx.platform();
    await expect(platform.webhooks.restoreSecret(w.id)).rejects.toThrow(
      refusal(`POST /v1/webhooks/${w.id}/restore-secret`, 'id', other.id, w.id).replace(/^error: /, ''),
    );
  });

  it('webhooks deliveries get: a delivery of another webhook (F3)', async () => {
    const w = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/w');
    const other = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/other');
    const sent = await svc.run(['webhooks', 'test', w.id, '--no-wait', '--json']);
    const dlv = (JSON.parse(sent.stdout) as { delivery: { id: string } }).delivery.id;
    proxy().set({ reshape: about('GET', /\/deliveries\/[^/]+$/, { webhook_id: other.id }) });
    const r = await viaProxy(['webhooks', 'deliveries', 'get', w.id, dlv]);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toContain(
      refusal(`GET /v1/webhooks/${w.id}/deliveries/${dlv}`, 'webhook_id', other.id, w.id),
    );
  });

  it('records get and update: another record (F7)', async () => {
    const made = await svc.run(['records', 'create', 'exceptions', '--data', '{"a":1}', '--json']);
    const id = (JSON.parse(made.stdout) as { id: string }).id;
    proxy().set({ reshape: about('GET', /^\/v1\/exceptions\//, { id: 'rec_other' }) });
    const get = await viaProxy(['records', 'get', 'exceptions', id]);
    expect([get.code, get.stdout]).toEqual([1, '']);
    expect(get.stderr).toContain(refusal(`GET /v1/exceptions/${id}`, 'id', 'rec_other', id));
    proxy().set({ reshape: about('PATCH', /^\/v1\/exceptions\//, { id: 'rec_other' }) });
    const update = await viaProxy(['records', 'update', 'exceptions', id, '--data', '{"a":2}']);
    expect([update.code, update.stdout]).toEqual([1, '']);
    expect(update.stderr).toContain(refusal(`PATCH /v1/exceptions/${id}`, 'id', 'rec_other', id));
  });
});
