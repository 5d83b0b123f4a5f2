/**
 * attack26a F6: the --json answer of every verb that deletes, revokes or removes one thing is one
 * shape (src/commands/verdict.ts): `outcome`, and the object under its noun, side by side; what a
 * verb printed at the top before stays there. Exact stdout per verb and outcome, the key order
 * included (a script's `jq` does not care, a reader does).
 */
import { describe, expect, it } from 'vitest';
import { useNoContentDeletes } from '../helpers/lossy-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { createWebhook } from '../helpers/webhooks.js';

const svc = useSandboxContext();
const noContent = useNoContentDeletes(svc.sandbox);
const TENANT = 'acme-treasury';

const printed = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
type Obj = Record<string, unknown>;

async function json(argv: string[], env: Record<string, string> = {}): Promise<Obj> {
  const r = await svc.run([...argv, '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Obj;
}

/** Runs a verb with --json and checks its stdout is exactly `expected(answer)`, the answer parsed. */
async function verdictOf(argv: string[], expected: (answer: Obj) => Obj, env: Record<string, string> = {}) {
  const r = await svc.run([...argv, '--json'], { env });
  expect([r.code, r.stderr]).toEqual([0, '']);
  const answer = JSON.parse(r.stdout) as Obj;
  expect(r.stdout).toBe(printed(expected(answer)));
  return answer;
}

describe('one --json verdict for every delete, revoke and rm', () => {
  it('records delete: {outcome, record}, deleted then already_deleted', async () => {
    const made = await json(['records', 'create', 'reconciliations', '--data', '{"name":"v"}']);
    const argv = ['records', 'delete', 'reconciliations', String(made.id), '--yes'];
    const first = await verdictOf(argv, (a) => ({ outcome: 'deleted', record: a.record }));
    expect(first.record).toMatchObject({ id: made.id, soft_delete: true });
    await verdictOf(argv, () => ({ outcome: 'already_deleted', record: first.record }));
  });

  it('tenants api-keys revoke: the key at the top as before, outcome, and the key under api_key', async () => {
    const made = await json([
      'tenants',
      'api-keys',
      'create',
      TENANT,
      '--kind',
      'publishable',
      '--name',
      'v',
      '--show-secret',
    ]);
    const argv = ['tenants', 'api-keys', 'revoke', TENANT, String(made.id), '--yes'];
    const first = await verdictOf(argv, (a) => {
      const { outcome: _o, api_key: key, ...top } = a;
      return { ...top, outcome: 'revoked', api_key: top };
    });
    expect(first.api_key).toMatchObject({ id: made.id, name: 'v' });
    expect(typeof (first.api_key as Obj).revoked_at).toBe('string');
    const now = await json(['tenants', 'api-keys', 'get', TENANT, String(made.id)]);
    await verdictOf(argv, () => ({ ...now, outcome: 'already_revoked', api_key: now }));
  });

  it('roles delete: the role (and revoked_assignments) at the top as before, outcome, the role under role', async () => {
    const made = await json(['roles', 'create', '--name', 'verdict-role', '--permission', 'exception.read']);
    const argv = ['roles', 'delete', String(made.id), '--yes'];
    const first = await verdictOf(argv, (a) => {
      const { outcome: _o, role: _r, ...top } = a;
      return { ...top, outcome: 'deleted', role: top };
    });
    expect(first.role).toMatchObject({ id: made.id, name: 'verdict-role', revoked_assignments: 0 });
    const now = await json(['roles', 'get', String(made.id)]);
    await verdictOf(argv, () => ({ ...now, outcome: 'already_deleted', role: now }));
  });

  it('roles revoke: the assignment at the top as before, outcome, the assignment under assignment', async () => {
    const role = await json(['roles', 'create', '--name', 'verdict-held', '--permission', 'exception.read']);
    const grant = ['usr_analyst', String(role.id), '--expires-in', '1h', '--justification', 'verdict test'];
    await json(['roles', 'assign', ...grant]);
    const answer = await verdictOf(['roles', 'revoke', 'usr_analyst', String(role.id), '--yes'], (a) => {
      const { outcome: _o, assignment: _a, ...top } = a;
      return { ...top, outcome: 'revoked', assignment: top };
    });
    expect(answer.assignment).toMatchObject({ user_id: 'usr_analyst', role_id: role.id });
  });

  it('webhooks delete: the answer at the top as before, outcome, the answer under webhook', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/verdict');
    const answer = await verdictOf(['webhooks', 'delete', id, '--yes'], (a) => {
      const top = { id, deleted: true, deleted_at: a.deleted_at };
      return { ...top, outcome: 'deleted', webhook: top };
    });
    expect(typeof answer.deleted_at).toBe('string');
  });

  it('webhooks delete answered 204 without a body: the ids known, the outcome, webhook null', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/verdict-204');
    await verdictOf(
      ['webhooks', 'delete', id, '--yes'],
      () => ({
        id,
        url: 'https://h.example/verdict-204',
        status_code: 204,
        detail: 'the server answered HTTP 204 without a body, which says it was deleted',
        outcome: 'answered_without_body',
        webhook: null,
      }),
      { SVC_BASE_URL: noContent().url },
    );
  });

  it('oauth delete: the answer at the top as before, outcome, the answer under client', async () => {
    const made = await json([
      ...['oauth', 'create', '--name', 'verdict', '--redirect-uri', 'http://127.0.0.1/callback'],
      ...['--scope', 'read:exceptions', '--show-secret'],
    ]);
    const id = String(made.client_id);
    const answer = await verdictOf(['oauth', 'delete', id, '--yes'], (a) => {
      const top = { client_id: id, deleted: true, deleted_at: a.deleted_at };
      return { ...top, outcome: 'deleted', client: top };
    });
    expect(typeof answer.deleted_at).toBe('string');
  });
});
