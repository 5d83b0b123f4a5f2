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

  it('a lead assigns and reassigns; a reviewer overrides an assignment but does not make one', async () => {
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
  });

  // Review 15c R6: since F1 no built-in role but tenant_admin resolved anything; the analyst's
  // exception.write ("read/write exceptions", day-to-day work) resolves every kind without a
  // resolve permission of its own, and an FX difference still takes exception.resolve[.fx_difference].
  it('the analyst, lead and reviewer resolve and reopen a day-to-day exception, not an FX difference', async () => {
    for (const [n, role] of [
      [8, 'tenant_analyst'],
      [9, 'tenant_lead'],
      [10, 'tenant_reviewer'],
    ] as const) {
      await grant(user(n), role);
      const id = await made('exceptions', { kind: 'duplicate', status: 'open' });
      const done = await patch('exceptions', id, { status: 'resolved', resolution: 'merged' }, as(user(n)));
      expect([role, done.status, done.body.status]).toEqual([role, 200, 'resolved']);
      expect((await patch('exceptions', id, { status: 'open' }, as(user(n)))).body.status).toBe('open');
      const fx = await made('exceptions', { kind: 'fx_difference', status: 'open' });
      expect(refusal(await patch('exceptions', fx, { status: 'resolved' }, as(user(n))))).toEqual([
        403,
        'insufficient_role',
        need(
          role,
          'resolving an exception of kind fx_difference needs permission exception.resolve.fx_difference (exception.resolve grants it too)',
        ),
      ]);
    }
  });

  // Review 15c R1: the kind after the change alone decided, so a relabel in the resolving PATCH (or
  // of a resolved exception) picked the resolve permission; both kinds are judged now.
  it('a relabel is no way round a kind with its own resolve permission', async () => {
    await grant(user(11), 'tenant_analyst');
    const fxResolve = need(
      'tenant_analyst',
      'resolving an exception of kind fx_difference needs permission exception.resolve.fx_difference (exception.resolve grants it too)',
    );
    const fx = await made('exceptions', { kind: 'fx_difference', status: 'open' });
    expect(
      refusal(await patch('exceptions', fx, { status: 'resolved', kind: 'duplicate' }, as(user(11)))),
    ).toEqual([403, 'insufficient_role', fxResolve]);
    expect([stored(fx)?.kind, stored(fx)?.status]).toEqual(['fx_difference', 'open']);
    // Resolved as another kind, then relabelled back: the relabel of a resolved exception is refused.
    expect((await patch('exceptions', fx, { kind: 'duplicate' }, as(user(11)))).status).toBe(200);
    expect((await patch('exceptions', fx, { status: 'resolved' }, as(user(11)))).status).toBe(200);
    expect(refusal(await patch('exceptions', fx, { kind: 'fx_difference' }, as(user(11))))).toEqual([
      403,
      'insufficient_role',
      need(
        'tenant_analyst',
        'changing the kind of a resolved exception of kind fx_difference needs permission exception.resolve.fx_difference (exception.resolve grants it too)',
      ),
    ]);
    expect([stored(fx)?.kind, stored(fx)?.status]).toEqual(['duplicate', 'resolved']);
    // An FX resolver (the review's fx-resolver role) reopens an FX difference only as itself.
    const fxResolver = await customRole('fx-resolver', ['exception.read', 'exception.resolve.fx_difference']);
    await grant(user(12), fxResolver.id);
    const other = await made('exceptions', { kind: 'duplicate', status: 'resolved' });
    expect(
      refusal(await patch('exceptions', other, { status: 'open', kind: 'fx_difference' }, as(user(12))))[0],
    ).toBe(403);
    expect(stored(other)?.status).toBe('resolved');
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
      need(
        'fx-desk',
        'resolving an exception of kind duplicate needs permission exception.write or exception.resolve',
      ),
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

// To a caller who cannot read the record, what it lacks for sure is the read (review 16b B5).
const BLIND_EXCEPTION = [
  'changing an exception you cannot read needs one that exists and is not deleted, and exception.read for a patch ' +
    'that names no field, else for each member sent what it may call for whatever the record holds (exception.read ' +
    'shows its kind, status and assignment): one or more of exception.assign, exception.override, exception.resolve, ' +
    'exception.resolve.fx_difference, exception.write',
  'exception.read',
] as const;
const BLIND_RULE = [
  'changing a rule you cannot read needs one that exists and is not deleted, and rule.read for a patch that names ' +
    'no field, else for each member sent what it may call for whatever the record holds (rule.read shows its kind): ' +
    'one or more of rule.write',
  'rule.read',
] as const;
const blind = (roles: string, [what, read]: readonly [string, string]) =>
  `${what} in tenant acme-treasury; your live roles there (${roles}) do not grant ${read}; ask a tenant_admin of acme-treasury for ${read}, or for the permission the change needs`;

// Review 15c R4: a patch that changes nothing answered the whole record before any record check,
// so a finer permission (let through to the operation) read every exception and rule; and a
// refused change named the kind of a record the caller cannot read.
describe('a finer permission reads nothing it may not read', () => {
  it('a patch that changes nothing is a read: 403 without the read permission; a refusal names no kind', async () => {
    const fxOnly = await customRole('fx-only', ['exception.resolve.fx_difference']);
    await grant(user(13), fxOnly.id);
    const bank = await made('exceptions', {
      kind: 'bank_mismatch',
      status: 'open',
      counterparty: 'ACME GmbH',
    });
    // To a caller who cannot read it, what a refusal names does not depend on the record (session 16).
    expect(refusal(await patch('exceptions', bank, {}, as(user(13))))).toEqual([
      403,
      'insufficient_role',
      blind('fx-only', BLIND_EXCEPTION),
    ]);
    expect(refusal(await patch('exceptions', bank, { status: 'open' }, as(user(13))))[0]).toBe(403);
    expect(refusal(await patch('exceptions', bank, { status: 'resolved' }, as(user(13))))).toEqual([
      403,
      'insufficient_role',
      blind('fx-only', BLIND_EXCEPTION),
    ]);
    const desk = await customRole('fx-rule-desk', ['exception.read', 'rule.write.fx']);
    await grant(user(14), desk.id);
    const rule = await made('rules', { kind: 'bank', name: 'secret matching rule' });
    expect(refusal(await patch('rules', rule, {}, as(user(14))))).toEqual([
      403,
      'insufficient_role',
      blind('fx-rule-desk', BLIND_RULE),
    ]);
    expect(refusal(await patch('rules', rule, { name: 'x' }, as(user(14))))).toEqual([
      403,
      'insufficient_role',
      blind('fx-rule-desk', BLIND_RULE),
    ]);
    // A reader's patch that changes nothing still answers the record.
    const same = await patch('exceptions', bank, { status: 'open' }, admin());
    expect([same.status, same.body.counterparty]).toEqual([200, 'ACME GmbH']);
  });
});

// Session 16: a refusal named the permission the record's kind (or status, or assignment) takes,
// so a caller who cannot read an exception learned whether it is an FX difference, resolved or
// assigned from which permission or act the refusal named. To a caller who cannot read the
// record, every refused change of it now says the same, whatever the record holds (as GET, which
// is refused whatever the record holds).
describe('a refusal tells a caller who cannot read the record nothing of it', () => {
  it('exception.assign only: resolving an FX difference, a bank mismatch, a resolved one, a no-op: one refusal', async () => {
    const assigner = await customRole('assign-only', ['exception.assign']);
    await grant(user(15), assigner.id);
    const fx = await made('exceptions', { kind: 'fx_difference', status: 'open' });
    const bank = await made('exceptions', { kind: 'bank_mismatch', status: 'open' });
    const closed = await made('exceptions', { kind: 'fx_difference', status: 'resolved' });
    const refused = [
      await patch('exceptions', fx, { status: 'resolved' }, as(user(15))),
      await patch('exceptions', bank, { status: 'resolved' }, as(user(15))),
      await patch('exceptions', closed, { status: 'resolved' }, as(user(15))),
      await patch('exceptions', closed, { status: 'open' }, as(user(15))),
      await patch('exceptions', bank, { status: 'open' }, as(user(15))),
    ].map(refusal);
    expect(refused).toEqual(
      Array.from({ length: 5 }, () => [403, 'insufficient_role', blind('assign-only', BLIND_EXCEPTION)]),
    );
    // A reader is told what the record takes, its kind named.
    const reader = await customRole('assign-reader', ['exception.read', 'exception.assign']);
    await grant(user(16), reader.id);
    expect(refusal(await patch('exceptions', fx, { status: 'resolved' }, as(user(16))))[2]).toBe(
      need(
        'assign-reader',
        'resolving an exception of kind fx_difference needs permission exception.resolve.fx_difference (exception.resolve grants it too)',
      ),
    );
  });
});
