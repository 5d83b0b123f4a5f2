import { describe, expect, it } from 'vitest';
import { call, useGrantRules } from '../helpers/sandbox.js';

// Review 16b B4, B9, B5: a caller who cannot read a record (a finer permission alone, or write
// without read) read it all the same from the answer to an accepted change (kind, counterparty,
// amount), told an existing id (403) from a missing one (404) and a deleted one (409 record_deleted)
// by PATCH where GET says one thing for all, and was told their roles "do not grant" the very
// exception.assign they hold.
const { sandbox, key, user, admin, as, customRole, grant, refusal } = useGrantRules('blind-writes');

async function made(surface: string, body: Record<string, unknown>) {
  const r = await call(sandbox(), 'POST', `/v1/${surface}`, {
    ...admin(),
    body: { ...body, idempotency_key: key() },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.id as string;
}
const patch = (surface: string, id: string, body: Record<string, unknown>, caller = admin()) =>
  call(sandbox(), 'PATCH', `/v1/${surface}/${id}`, { ...caller, body });
const remove = (surface: string, id: string, caller = admin()) =>
  call(sandbox(), 'DELETE', `/v1/${surface}/${id}`, caller);

/** What an accepted change may answer to a caller who cannot read the record, besides what was sent. */
const FRAME = ['id', 'surface', 'tenant_id', 'updated_at'];
const keysOf = (body: Record<string, unknown>) => Object.keys(body).sort();

const BLIND_EXCEPTION =
  'changing an exception you cannot read needs one that exists and is not deleted, and exception.read for a patch ' +
  'that names no field, else for each member sent what it may call for whatever the record holds (exception.read ' +
  'shows its kind, status and assignment): one or more of exception.assign, exception.override, exception.resolve, ' +
  'exception.resolve.fx_difference, exception.write';
const blindTo = (roles: string, what: string, read: string) =>
  `${what} in tenant acme-treasury; your live roles there (${roles}) do not grant ${read}; ask a tenant_admin of acme-treasury for ${read}, or for the permission the change needs`;

describe('an accepted change answers a caller who cannot read the record only what it sent', () => {
  it('exception.assign, exception.resolve, rule.write alone: no field beyond what was sent', async () => {
    const cases = [
      { perm: 'exception.assign', surface: 'exceptions', sent: { assigned_to: user(1) } },
      {
        perm: 'exception.resolve',
        surface: 'exceptions',
        sent: { status: 'resolved', resolution: 'written off' },
      },
      { perm: 'rule.write', surface: 'rules', sent: { threshold: 0.021 } },
    ];
    let n = 1;
    for (const { perm, surface, sent } of cases) {
      const role = await customRole(`only-${perm.replaceAll('.', '-')}`, [perm]);
      await grant(user(++n), role.id);
      const id = await made(
        surface,
        surface === 'rules'
          ? { kind: 'fx', name: 'secret-fx-rule', threshold: 0.02 }
          : { kind: 'fx_difference', status: 'open', counterparty: 'HiddenCo', amount: '125000.50' },
      );
      const read = await call(sandbox(), 'GET', `/v1/${surface}/${id}`, as(user(n)));
      expect(read.status, perm).toBe(403);
      const r = await patch(surface, id, sent, as(user(n)));
      expect(r.status, `${perm}: ${r.text}`).toBe(200);
      expect(keysOf(r.body), perm).toEqual([...FRAME, ...Object.keys(sent)].sort());
      expect(r.body, perm).toMatchObject({ ...sent, id, surface });
      // The change was made all the same, and a reader still gets the whole record.
      const whole = await call(sandbox(), 'GET', `/v1/${surface}/${id}`, admin());
      expect(whole.body, perm).toMatchObject({ ...sent, kind: surface === 'rules' ? 'fx' : 'fx_difference' });
    }
  });

  it('a member merged into an object answers the member sent, not the object it joined', async () => {
    const role = await customRole('write-no-read', ['exception.write']);
    await grant(user(6), role.id);
    const id = await made('exceptions', { kind: 'duplicate', meta: { secret: 'x', a: 1 } });
    const r = await patch('exceptions', id, { meta: { a: 2 } }, as(user(6)));
    expect([r.status, keysOf(r.body), r.body.meta]).toEqual([200, [...FRAME, 'meta'].sort(), { a: 2 }]);
    const gone = await remove('exceptions', id, as(user(6)));
    expect([gone.status, keysOf(gone.body)]).toEqual([
      200,
      [...FRAME, 'soft_delete', 'deleted_at', 'purge_at'].sort(),
    ]);
    expect(gone.body.soft_delete).toBe(true);
  });
});

describe('to a caller who cannot read the record, a PATCH of any id is refused the same', () => {
  it('an assigned exception, an id that is not there and a deleted one: one refusal, as GET', async () => {
    const role = await customRole('assign-only', ['exception.assign']);
    await grant(user(7), role.id);
    const assigned = await made('exceptions', {
      kind: 'fx_difference',
      status: 'open',
      assigned_to: user(1),
    });
    const deleted = await made('exceptions', { kind: 'bank_mismatch', status: 'open' });
    expect((await remove('exceptions', deleted)).status).toBe(200);
    const ids = [assigned, 'rec_0000000000000000deadbeef', deleted];
    const gets = await Promise.all(
      ids.map(async (id) => refusal(await call(sandbox(), 'GET', `/v1/exceptions/${id}`, as(user(7))))),
    );
    expect(new Set(gets.map((g) => JSON.stringify(g))).size).toBe(1);
    for (const body of [{ note: 'looked at it' }, { status: 'resolved' }]) {
      const patches = [];
      for (const id of ids) patches.push(refusal(await patch('exceptions', id, body, as(user(7)))));
      expect(patches).toEqual(
        ids.map(() => [403, 'insufficient_role', blindTo('assign-only', BLIND_EXCEPTION, 'exception.read')]),
      );
    }
    // A reader is told as before: not found, deleted.
    expect(refusal(await patch('exceptions', ids[1]!, { note: 'x' }))[0]).toBe(404);
    expect(refusal(await patch('exceptions', deleted, { note: 'x' }))[1]).toBe('record_deleted');
  });

  it('a surface without acts: write without read gets one refusal for a missing and a deleted id', async () => {
    const role = await customRole('recon-write-only', ['reconciliation.write']);
    await grant(user(8), role.id);
    const deleted = await made('reconciliations', { name: 'gone' });
    expect((await remove('reconciliations', deleted)).status).toBe(200);
    const words = blindTo(
      'recon-write-only',
      'changing a record of reconciliations you cannot read needs one that exists and is not deleted, and ' +
        'reconciliation.read for a patch that names no field',
      'reconciliation.read',
    );
    for (const id of ['rec_0000000000000000deadbeef', deleted]) {
      expect(refusal(await patch('reconciliations', id, { name: 'x' }, as(user(8))))).toEqual([
        403,
        'insufficient_role',
        words,
      ]);
    }
  });
});

// Review 16d D1: DELETE still used find(): to a caller who cannot read, 404 for a missing id, 200
// for an existing one, and for one already deleted the original deleted_at, updated_at and purge_at
// (a read: deleting again changes nothing).
describe('to a caller who cannot read the record, a DELETE of a missing or deleted id is refused as PATCH', () => {
  it('write without read: one refusal for a missing and an already deleted id; a keyed retry of their own delete answers as the first time', async () => {
    const role = await customRole('exc-write-only', ['exception.write']);
    await grant(user(9), role.id);
    const gone = await made('exceptions', { kind: 'fx_difference', status: 'open' });
    expect((await remove('exceptions', gone)).status).toBe(200);
    // review17 F3: in words of a delete, which sends no patch and takes nothing the caller lacks.
    const words = [
      403,
      'insufficient_role',
      'deleting an exception you cannot read needs one that exists and is not deleted (exception.read shows whether it does) ' +
        'in tenant acme-treasury; your live roles there (exc-write-only) do not grant exception.read; ' +
        'ask someone who holds exception.read whether it exists, or a tenant_admin of acme-treasury for exception.read',
    ];
    for (const id of ['rec_0000000000000000deadbeef', gone]) {
      expect(refusal(await remove('exceptions', id, as(user(9)))), id).toEqual(words);
    }
    expect(sandbox().state.records.get(admin().tenant!, 'exceptions', gone)).toBeTruthy();
    // Their own delete, retried with its key, answers what the first did (never a failure).
    const live = await made('exceptions', { kind: 'duplicate', status: 'open' });
    const keyed = { ...as(user(9)), headers: { 'idempotency-key': key() } };
    const first = await call(sandbox(), 'DELETE', `/v1/exceptions/${live}`, keyed);
    expect([first.status, keysOf(first.body)]).toEqual([
      200,
      [...FRAME, 'soft_delete', 'deleted_at', 'purge_at'].sort(),
    ]);
    const again = await call(sandbox(), 'DELETE', `/v1/exceptions/${live}`, keyed);
    expect([again.status, again.body, again.headers.get('idempotent-replayed')]).toEqual([
      200,
      first.body,
      'true',
    ]);
    // Without the key it is one more DELETE of a deleted record: the one refusal.
    expect(refusal(await remove('exceptions', live, as(user(9))))).toEqual(words);
  });
});

// Review 16d D2: a no-op patch was judged as a read, so to a caller who cannot read the record the
// status said whether each value sent was already the record's (403 exactly when it was).
describe("to a caller who cannot read the record, a patch's answer does not tell whether it changed anything", () => {
  it('write without read: a member set to what it is answers as a change of it, updated_at set', async () => {
    const role = await customRole('exc-writer', ['exception.write']);
    await grant(user(10), role.id);
    const id = await made('exceptions', { kind: 'duplicate', status: 'open', note: 'n1' });
    sandbox().state.clock.advance(5_000);
    for (const sent of [{ note: 'n1' }, { note: 'n2' }, { counterparty: null }]) {
      const before = sandbox().state.records.get(admin().tenant!, 'exceptions', id)!.updated_at;
      sandbox().state.clock.advance(2_000);
      const r = await patch('exceptions', id, sent, as(user(10)));
      expect([r.status, keysOf(r.body)], JSON.stringify(sent)).toEqual([
        200,
        [...FRAME, ...Object.keys(sent)].sort(),
      ]);
      expect(r.body.updated_at, JSON.stringify(sent)).not.toBe(before);
      expect(sandbox().state.records.get(admin().tenant!, 'exceptions', id)!.updated_at).toBe(
        r.body.updated_at,
      );
    }
    // A patch naming no field is refused whatever the record holds; a reader's no-op keeps updated_at.
    expect(refusal(await patch('exceptions', id, {}, as(user(10))))[0]).toBe(403);
    const stamp = sandbox().state.records.get(admin().tenant!, 'exceptions', id)!.updated_at;
    sandbox().state.clock.advance(2_000);
    expect((await patch('exceptions', id, { note: 'n2' })).body.updated_at).toBe(stamp);
  });

  it('exception.assign alone: assigning to whom it is assigned to is accepted, as assigning to another is', async () => {
    const role = await customRole('assigner-only', ['exception.assign']);
    await grant(user(11), role.id);
    const id = await made('exceptions', { kind: 'fx_difference', status: 'open', assigned_to: user(1) });
    const same = await patch('exceptions', id, { assigned_to: user(1) }, as(user(11)));
    const other = await patch('exceptions', id, { assigned_to: user(2) }, as(user(11)));
    expect([same.status, other.status]).toEqual([200, 200]);
    // A field they may not change is refused whether or not it is already the value sent.
    const refusals = [
      await patch('exceptions', id, { kind: 'fx_difference' }, as(user(11))),
      await patch('exceptions', id, { kind: 'duplicate' }, as(user(11))),
    ].map(refusal);
    expect(refusals).toEqual([
      [403, 'insufficient_role', blindTo('assigner-only', BLIND_EXCEPTION, 'exception.read')],
      [403, 'insufficient_role', blindTo('assigner-only', BLIND_EXCEPTION, 'exception.read')],
    ]);
  });

  // Review 16f F2: with a member they may change beside it, a member set to what it is was judged
  // unchanged, so the answer told whether the record held the value probed (200) or not (403).
  it('write without read: a probe beside a member they may change answers the same whatever the record holds', async () => {
    const role = await customRole('exc-writer-probe', ['exception.write']);
    await grant(user(12), role.id);
    const answers = async (record: Record<string, unknown>, sent: Record<string, unknown>) => {
      const id = await made('exceptions', { note: 'n0', ...record });
      return refusal(await patch('exceptions', id, { note: 'probe', ...sent }, as(user(12))));
    };
    const probes: [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>][] = [
      // [the record, another record, the probe]: the first holds what is probed, the other not.
      [
        { kind: 'duplicate', status: 'open', assigned_to: user(1) },
        { kind: 'duplicate', status: 'open', assigned_to: user(3) },
        { assigned_to: user(1) },
      ],
      [
        { kind: 'duplicate', status: 'open', assigned_to: user(1) },
        { kind: 'duplicate', status: 'open' },
        { assigned_to: user(1) },
      ],
      [
        { kind: 'fx_difference', status: 'resolved' },
        { kind: 'fx_difference', status: 'open' },
        { status: 'resolved' },
      ],
      [
        { kind: 'fx_difference', status: 'resolved' },
        { kind: 'fx_difference', status: 'open' },
        { status: 'open' },
      ],
      [
        { kind: 'duplicate', status: 'resolved' },
        { kind: 'duplicate', status: 'open' },
        { kind: 'duplicate' },
      ],
      [{ kind: 'fx_difference', status: 'open' }, { kind: 'duplicate', status: 'open' }, { status: 'open' }],
      [
        { kind: 'fx_difference', status: 'open' },
        { kind: 'duplicate', status: 'open' },
        { status: 'resolved' },
      ],
    ];
    for (const [holds, not, sent] of probes) {
      const [a, b] = [await answers(holds, sent), await answers(not, sent)];
      expect(a, `${JSON.stringify(sent)} to ${JSON.stringify(holds)} and ${JSON.stringify(not)}`).toEqual(b);
    }
    // What they may do is still done, whatever the record holds beside it.
    expect((await answers({ kind: 'duplicate', status: 'open' }, {}))[0]).toBe(200);
    expect((await answers({ kind: 'fx_difference', status: 'open' }, {}))[0]).toBe(200);
  });

  it('a per-kind permission alone changes no record it cannot read, of its kind or another: the kind is what a read shows', async () => {
    const cases = [
      {
        perm: 'exception.resolve.fx_difference',
        surface: 'exceptions',
        kinds: ['fx_difference', 'duplicate'],
        sent: { status: 'resolved' },
      },
      { perm: 'rule.write.fx', surface: 'rules', kinds: ['fx', 'match'], sent: { threshold: 0.021 } },
    ];
    let n = 12;
    for (const { perm, surface, kinds, sent } of cases) {
      const role = await customRole(`kind-${perm.replaceAll('.', '-')}`, [perm]);
      await grant(user(++n), role.id);
      const answers = [];
      for (const kind of kinds) {
        const id = await made(
          surface,
          surface === 'rules' ? { kind, name: `r-${kind}`, threshold: 0.02 } : { kind, status: 'open' },
        );
        answers.push(refusal(await patch(surface, id, sent, as(user(n)))));
      }
      expect(answers[0], perm).toEqual(answers[1]);
      expect(answers[0]![0], perm).toBe(403);
    }
  });
});
