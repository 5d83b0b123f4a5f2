/**
 * review25b M1: the ✓ line of a records, OAuth client or custom role change names the tenant svc
 * sent, but only four role operations checked the answer's `tenant_id` against it: a server
 * answering a record's create with another tenant got `✓ Created exceptions record rec_… in <sent
 * tenant>`, exit 0. Now every change whose ✓ line names the tenant refuses an answer about another
 * (exit 1, what was asked and what came, no ✓), as a grant's always did. Through a proxy that
 * rewrites the sandbox's answer.
 */
import { describe, expect, it } from 'vitest';
import { customRole } from '../helpers/bulk.js';
import { type Reshaped, useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { ACME, useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);
const OTHER = '11111111-2222-4333-8444-555555555555';
const viaProxy = (argv: string[]) => svc.run(argv, { env: { SVC_BASE_URL: proxy().url }, now: Date.now() });

/** Answers to `method` on a path matching `path` say they are about OTHER. */
const otherTenant = (method: string, path: RegExp) => (answer: Reshaped) => {
  if (answer.method === method && path.test(answer.path) && answer.status < 300)
    Object.assign(answer.body as object, { tenant_id: OTHER });
};

/** The refusal of an answer about OTHER, with the shown-by hint where the change has one. */
const refusal = (request: string) =>
  new RegExp(
    `^error: the server's answer to ${request.replace(/[/.]/g, '\\$&')} is about tenant_id "${OTHER}", not the tenant_id "${ACME}" asked for; `,
  );

describe('an answer about another tenant than the change was sent to: refused, no ✓ (review25b M1)', () => {
  it('records create', async () => {
    proxy().set({ reshape: otherTenant('POST', /^\/v1\/exceptions$/) });
    const r = await viaProxy(['records', 'create', 'exceptions', '--data', '{"a":1}']);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(refusal('POST /v1/exceptions'));
    expect(r.stderr).not.toContain('✓');
  });

  it('records update and delete', async () => {
    proxy().set({});
    const made = await svc.run(['records', 'create', 'exceptions', '--data', '{"a":1}', '--json']);
    const id = (JSON.parse(made.stdout) as { id: string }).id;
    proxy().set({ reshape: otherTenant('PATCH', /^\/v1\/exceptions\//) });
    const update = await viaProxy(['records', 'update', 'exceptions', id, '--data', '{"a":2}']);
    expect([update.code, update.stdout]).toEqual([1, '']);
    expect(update.stderr).toMatch(refusal(`PATCH /v1/exceptions/${id}`));
    proxy().set({ reshape: otherTenant('DELETE', /^\/v1\/exceptions\//) });
    const gone = await viaProxy(['records', 'delete', 'exceptions', id, '--yes']);
    expect([gone.code, gone.stdout]).toEqual([1, '']);
    expect(gone.stderr).toMatch(refusal(`DELETE /v1/exceptions/${id}`));
    expect(gone.stderr).not.toContain('✓');
  });

  it('oauth update and delete', async () => {
    proxy().set({});
    const made = await svc.run([
      ...['oauth', 'create', '--name', 'Other tenant', '--redirect-uri', 'https://vendor.example/cb'],
      ...['--scope', 'read:exceptions', '--show-secret', '--json'],
    ]);
    const client = (JSON.parse(made.stdout) as { client_id: string }).client_id;
    proxy().set({ reshape: otherTenant('PATCH', /^\/v1\/oauth\/clients\//) });
    const update = await viaProxy(['oauth', 'update', client, '--description', 'x']);
    expect([update.code, update.stdout]).toEqual([1, '']);
    expect(update.stderr).toMatch(refusal(`PATCH /v1/oauth/clients/${client}`));
    proxy().set({ reshape: otherTenant('DELETE', /^\/v1\/oauth\/clients\//) });
    const gone = await viaProxy(['oauth', 'delete', client, '--yes']);
    expect([gone.code, gone.stdout]).toEqual([1, '']);
    expect(gone.stderr).toMatch(refusal(`DELETE /v1/oauth/clients/${client}`));
    expect(gone.stderr).not.toContain('✓');
  });

  it('roles update and delete', async () => {
    const id = await customRole(svc.sandbox(), 'other-tenant-answer');
    proxy().set({ reshape: otherTenant('PATCH', /^\/v1\/roles\//) });
    const update = await viaProxy(['roles', 'update', id, '--description', 'x']);
    expect([update.code, update.stdout]).toEqual([1, '']);
    expect(update.stderr).toMatch(refusal(`PATCH /v1/roles/${id}`));
    proxy().set({ reshape: otherTenant('DELETE', /^\/v1\/roles\//) });
    const gone = await viaProxy(['roles', 'delete', id, '--yes']);
    expect([gone.code, gone.stdout]).toEqual([1, '']);
    expect(gone.stderr).toMatch(refusal(`DELETE /v1/roles/${id}`));
    expect(gone.stderr).not.toContain('✓');
  });
});
