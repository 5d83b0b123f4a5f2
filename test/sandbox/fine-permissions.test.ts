import { describe, expect, it } from 'vitest';
import { call, useGrantRules } from '../helpers/sandbox.js';

// Session 15 (attack15 F1): the catalog's finer permissions were never checked: an analyst
// (exception.write only) resolved and reassigned an FX-difference exception, and a holder of
// rule.write.fx could not create an FX rule. What the record says is done now takes them
// (src/api/record-acts.ts).
const { sandbox, key, user, admin, as, customRole, grant, refusal } = useGrantRules('fine-perms');

const need = (roles: string, what: string) =>
  `${what} in tenant acme-treasury, which your live roles there (${roles}) do not grant; ask a tenant_admin of acme-treasury for a role that grants it`;

async function create(surface: string, body: Record<string, unknown>, caller = admin()) {
  return call(sandbox(), 'POST', `/v1/${surface}`, { ...caller, body: { ...body, idempotency_key: key() } });
}
async function made(surface: string, body: Record<string, unknown>) {
  const r = await create(surface, body);
  expect(r.status, r.text).toBe(201);
  return r.body.id as string;
}
const patch = (
  surface: string,
  id: string,
  body: Record<string, unknown>,
  caller: ReturnType<typeof admin>,
) => call(sandbox(), 'PATCH', `/v1/${surface}/${id}`, { ...caller, body });
const stored = (id: string) => sandbox().state.records.get(admin().tenant, 'exceptions', id);

describe('exceptions: resolving and assigning take the permissions the catalog names', () => {
  it('an analyst (exception.write) neither resolves nor assigns an FX-difference exception; other fields still', async () => {
    await grant(user(1), 'tenant_analyst');
    const id = await made('exceptions', { kind: 'fx_difference', status: 'open' });
    const resolve = await patch(
      'exceptions',
      id,
      { status: 'resolved', resolution: 'written off' },
      as(user(1)),
    );
    expect(refusal(resolve)).toEqual([
      403,
      'insufficient_role',
      need(
        'tenant_analyst',
        'resolving an exception of kind fx_difference needs permission exception.resolve.fx_difference (exception.resolve grants it too)',
      ),
    ]);
    const assign = await patch('exceptions', id, { assigned_to: 'usr_viewer' }, as(user(1)));
    expect(refusal(assign)).toEqual([
      403,
      'insufficient_role',
      need('tenant_analyst', 'assigning an exception needs permission exception.assign'),
    ]);
    expect([stored(id)?.status, stored(id)?.assigned_to, stored(id)?.resolution]).toEqual([
      'open',
      undefined,
      undefined,
    ]);
    const note = await patch('exceptions', id, { note: 'looked at it' }, as(user(1)));
    expect([note.status, note.body.note]).toEqual([200, 'looked at it']);
    // Created resolved or assigned: the same acts.
    const resolvedAtOnce = await create(
      'exceptions',
      { kind: 'fx_difference', status: 'resolved' },
      as(user(1)),
    );
    expect(refusal(resolvedAtOnce)[0]).toBe(403);
  });

  it('a lead assigns and reassigns but does not resolve; a reviewer overrides an assignment but does not make one', async () => {
    await grant(user(2), 'tenant_lead');
    await grant(user(3), 'tenant_reviewer');
    const id = await made('exceptions', { kind: 'duplicate', status: 'open' });
    expect(refusal(await patch('exceptions', id, { assigned_to: 'usr_analyst' }, as(user(3))))).toEqual([
      403,
      'insufficient_role',
      need('tenant_reviewer', 'assigning an exception needs permission exception.assign'),
    ]);
    expect((await patch('exceptions', id, { assigned_to: 'usr_analyst' }, as(user(2)))).status).toBe(200);
    expect((await patch('exceptions', id, { assigned_to: 'usr_viewer' }, as(user(3)))).body.assigned_to).toBe(
      'usr_viewer',
    );
    expect(refusal(await patch('exceptions', id, { status: 'resolved' }, as(user(2))))).toEqual([
      403,
      'insufficient_role',
      need('tenant_lead', 'resolving an exception of kind duplicate needs permission exception.resolve'),
    ]);
  });

  it('an fx-desk role (exception.read, exception.resolve.fx_difference) resolves FX differences only; the admin any', async () => {
    const desk = await customRole('fx-desk', ['exception.read', 'exception.resolve.fx_difference']);
    await grant(user(4), desk.id);
    const fx = await made('exceptions', { kind: 'fx_difference', status: 'open' });
    const other = await made('exceptions', { kind: 'duplicate', status: 'open' });
    const ok = await patch(
      'exceptions',
      fx,
      { status: 'resolved', resolution: 'rate corrected' },
      as(user(4)),
    );
    expect([ok.status, ok.body.status, ok.body.resolution]).toEqual([200, 'resolved', 'rate corrected']);
    expect(refusal(await patch('exceptions', other, { status: 'resolved' }, as(user(4))))).toEqual([
      403,
      'insufficient_role',
      need('fx-desk', 'resolving an exception of kind duplicate needs permission exception.resolve'),
    ]);
    expect(refusal(await patch('exceptions', fx, { note: 'x' }, as(user(4))))).toEqual([
      403,
      'insufficient_role',
      need('fx-desk', "changing an exception's note needs permission exception.write"),
    ]);
    expect(
      (await patch('exceptions', other, { status: 'resolved', assigned_to: 'usr_lead' }, admin())).status,
    ).toBe(200);
  });

  it('a viewer is refused at the operation, as before', async () => {
    await grant(user(5), 'tenant_viewer');
    const id = await made('exceptions', { kind: 'fx_difference', status: 'open' });
    expect(refusal(await patch('exceptions', id, { status: 'resolved' }, as(user(5))))).toEqual([
      403,
      'insufficient_role',
      need(
        'tenant_viewer',
        'changing reconciliation exceptions needs permission exception.write (or, for what each names, exception.assign, exception.override, exception.resolve)',
      ),
    ]);
  });
});

describe('rules: a rule of kind fx is written with rule.write.fx or rule.write', () => {
  it('rule.write.fx alone creates and changes FX rules, and no other kind', async () => {
    const fxRules = await customRole('fx-rules', ['rule.read', 'rule.write.fx']);
    await grant(user(6), fxRules.id);
    const fx = await create('rules', { kind: 'fx', name: 'fx tolerance' }, as(user(6)));
    expect(fx.status, fx.text).toBe(201);
    expect((await patch('rules', fx.body.id, { name: 'fx tolerance 2' }, as(user(6)))).status).toBe(200);
    expect(refusal(await create('rules', { kind: 'amount', name: 'a' }, as(user(6))))).toEqual([
      403,
      'insufficient_role',
      need('fx-rules', 'creating a rule of kind amount needs permission rule.write'),
    ]);
    expect(refusal(await patch('rules', fx.body.id, { kind: 'amount' }, as(user(6))))).toEqual([
      403,
      'insufficient_role',
      need('fx-rules', 'changing a rule of kind amount needs permission rule.write'),
    ]);
  });

  it('a rule author (rule.write) writes every kind', async () => {
    await grant(user(7), 'tenant_rule_author');
    expect((await create('rules', { kind: 'fx', name: 'f' }, as(user(7)))).status).toBe(201);
    expect((await create('rules', { kind: 'amount', name: 'a' }, as(user(7)))).status).toBe(201);
  });
});
