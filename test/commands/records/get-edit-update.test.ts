/**
 * `svc records get --json | jq … | svc records update --data-file -` (attack20 F1): the fields the
 * platform owns, as the record holds them, are left out of the patch with a note; one that differs
 * (the record changed since it was read, or another record's) is refused before anything is sent:
 * a stale copy (updated_at differs) is read again, never sent with updated_at dropped, which would
 * undo the change made since (review20c F6); the note says what updated_at does not tell (F4).
 */
import { describe, expect, it } from 'vitest';
import { call, useLiveAdmin } from '../../helpers/sandbox.js';

const { sandbox, env, svc } = useLiveAdmin();

async function patches(): Promise<number> {
  const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([key]) => key.startsWith('PATCH /v1/exceptions/'))
    .reduce((sum, [, n]) => sum + n, 0);
}

async function created(): Promise<Record<string, any>> {
  const r = await svc(
    ['records', 'create', 'exceptions', '--data', '{"title":"a","amount":"100.50"}', '--json'],
    {
      env,
    },
  );
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const OWNED = 'id, surface, tenant_id, created_at, updated_at, created_by, soft_delete, deleted_at, purge_at';
const SAME_SECOND =
  "updated_at is compared to the second: a change made by someone else in the same second as the record's last one, before svc read it, is not seen, and the copy would undo it (a field whose copy differs from the record is sent)";

describe('records get --json, edited, as records update --data-file -', () => {
  it('updates the record: the fields the platform owns, as the record holds them, are left out (a note says so, but not under --json)', async () => {
    const record = await created();
    const edited = JSON.stringify({ ...record, title: 'edited' });
    const r = await svc(['records', 'update', 'exceptions', record.id, '--data-file', '-', '--json'], {
      env,
      input: edited,
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: record.id, title: 'edited', amount: '100.50' });
  });

  // review20d D8: the same instant written otherwise (a tool that rewrites times) was "changed since".
  it("an owned time written otherwise, the same instant, is the record's", async () => {
    const record = await created();
    const respelled = String(record.created_at).replace(/Z$/, '.000+00:00');
    expect(respelled).not.toBe(record.created_at);
    const edited = JSON.stringify({ ...record, created_at: respelled, title: 'respelled' });
    const r = await svc(['records', 'update', 'exceptions', record.id, '--data-file', '-', '--json'], {
      env,
      input: edited,
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: record.id, title: 'respelled' });
  });

  it('the record unedited changes nothing and sends nothing', async () => {
    const record = await created();
    const before = await patches();
    const r = await svc(['records', 'update', 'exceptions', record.id, '--data-file', '-'], {
      env,
      input: JSON.stringify(record),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `note: left out of the patch the fields the platform owns, which match the record's: ${OWNED}, and the 2 fields the copy holds as the record does; ${SAME_SECOND}\nnothing changed: exceptions record ${record.id} already has those fields\n`,
    );
    expect(await patches()).toBe(before);
  });

  it('a stale copy (changed since it was read: updated_at differs) is refused before anything is sent, with the way to read it again, never to drop updated_at (review20c F6)', async () => {
    const record = await created();
    const before = await patches();
    const stale = '2020-01-01T00:00:00Z';
    const r = await svc(['records', 'update', 'exceptions', record.id, '--data-file', '-'], {
      env,
      input: JSON.stringify({ ...record, updated_at: stale, title: 'edited' }),
    });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      `error: exceptions record ${record.id} changed since this copy was read: its updated_at is "${record.updated_at}", the copy's "${stale}"; sending the copy would undo that change, so nothing was sent; read the record again (\`svc records get exceptions ${record.id} --json\`) and make the edit on that copy; leaving updated_at out of this copy would send the old values\n`,
    );
    expect(r.stderr).not.toContain('del(');
    expect(await patches()).toBe(before);
  });

  it('a copy of another record (its id) is refused: this record is read and edited instead', async () => {
    const record = await created();
    const other = await created();
    const before = await patches();
    const r = await svc(['records', 'update', 'exceptions', record.id, '--data-file', '-'], {
      env,
      input: JSON.stringify({ ...other, title: 'edited' }),
    });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      `error: the patch is a copy of another record (id "${other.id}", not "${record.id}"): the fields the platform owns cannot be set; nothing was sent; read the record again (\`svc records get exceptions ${record.id} --json\`) and make the edit on that copy\n`,
    );
    expect(await patches()).toBe(before);
  });

  it('another field the platform owns set otherwise (the copy current) is refused, naming only that field to drop', async () => {
    const record = await created();
    const before = await patches();
    const r = await svc(['records', 'update', 'exceptions', record.id, '--data-file', '-'], {
      env,
      input: JSON.stringify({ ...record, created_by: 'usr_someone', title: 'edited' }),
    });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      `error: the patch sets fields the platform owns, which the record holds otherwise: created_by "usr_someone" (the record holds ${JSON.stringify(record.created_by ?? null)}); nothing was sent; they cannot be set: drop them (jq 'del(.created_by)'), or read the record again (\`svc records get exceptions ${record.id} --json\`) and make the edit on that copy\n`,
    );
    expect(await patches()).toBe(before);
  });
});

// attack28b F5: another operator changes a field the copy did not edit after svc read the record,
// before its PATCH lands (held by the sandbox until then: no timing). Only the fields the copy
// changes are sent, so the other change stands.
describe('records update from an edited copy while another operator changes the record', () => {
  it("sends only the copy's own changes: the other operator's change to another field is kept", async () => {
    const record = await created();
    const edited = JSON.stringify({ ...record, title: 'A title' });
    const held = sandbox().faults.hold(
      (method, url) => method === 'PATCH' && url === `/v1/exceptions/${record.id}`,
    );
    try {
      const updating = svc(['records', 'update', 'exceptions', record.id, '--data-file', '-', '--json'], {
        env,
        input: edited,
      });
      await held.arrived;
      const other = await call(sandbox(), 'PATCH', `/v1/exceptions/${record.id}`, {
        token: sandbox().adminToken,
        tenant: env.SVC_TENANT,
        body: { amount: 99 },
      });
      expect(other.status, other.text).toBe(200);
      held.release();
      const r = await updating;
      expect([r.code, r.stderr]).toEqual([0, '']);
      const now = await call(sandbox(), 'GET', `/v1/exceptions/${record.id}`, {
        token: sandbox().adminToken,
        tenant: env.SVC_TENANT,
      });
      expect(now.body).toMatchObject({ title: 'A title', amount: 99 });
    } finally {
      held.release();
    }
  });
});
