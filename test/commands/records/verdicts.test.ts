/**
 * What svc says about a record beside the record itself: `records create` answered from the
 * platform's stored answer to the data's own `idempotency_key` (an earlier run's: said, shown as
 * the record is now, exit 5 when it was deleted since; replayed-creation.ts), and `records delete
 * --json`, whose verdict sits beside the record, never among its fields (a record may have a field
 * named `outcome`).
 */
import { describe, expect, it } from 'vitest';
import { useLostCreations } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const lost = useLostCreations(svc.sandbox);

let runs = 0;
const newKey = () => `records-verdicts-${++runs}-${Date.now()}`;
const create = (data: Record<string, unknown>, ...flags: string[]) => [
  ...['records', 'create', 'reconciliations', '--data', JSON.stringify(data), ...flags],
];
const earlier = (id: string) =>
  `reconciliations record ${id} was already created by an earlier run with this idempotency key: this is the platform's stored answer, with the record as it is now\n`;

async function made(data: Record<string, unknown>) {
  const r = await svc.run(create(data, '--json'));
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown> & { id: string };
}

describe("svc records create with the data's own idempotency_key, run again", () => {
  it('says an earlier run created it, shows the record as it is now, and never "created"', async () => {
    const key = newKey();
    const data = { idempotency_key: key, name: 'March close' };
    const first = await made(data);
    const updated = await svc.run([
      ...['records', 'update', 'reconciliations', first.id, '--data', '{"name":"April close"}'],
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    const now = JSON.parse((await svc.run(['records', 'get', 'reconciliations', first.id, '--json'])).stdout);

    const text = await svc.run(create(data));
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toBe(earlier(first.id));
    expect(text.stdout).toContain('\nfield.name\tApril close\n');

    const json = await svc.run(create(data, '--json'));
    expect(json).toEqual({ code: 0, stdout: `${JSON.stringify(now, null, 2)}\n`, stderr: earlier(first.id) });
  });

  it('--json: the record as it is, svc adding nothing, not even "replayed" (a field of its own keeps its value)', async () => {
    // attack26a F6: webhooks, OAuth clients and API keys carry "replayed": true (asReplayed); a
    // record's fields are the user's, so svc's word would take the place of this one.
    const data = { idempotency_key: newKey(), name: 'own flag', replayed: false };
    const first = await made(data);
    const json = await svc.run(create(data, '--json'));
    expect(json).toEqual({
      code: 0,
      stdout: `${JSON.stringify(first, null, 2)}\n`,
      stderr: earlier(first.id),
    });
    expect(JSON.parse(json.stdout).replayed).toBe(false);
  });

  it.each([[[]], [['--json']]])(
    '%j: deleted since: says so, shows nothing as live (exit 5)',
    async (flags) => {
      const key = newKey();
      const data = { idempotency_key: key, name: 'March close' };
      const first = await made(data);
      expect((await svc.run(['records', 'delete', 'reconciliations', first.id, '--yes'])).code).toBe(0);
      const r = await svc.run(create(data, ...flags));
      expect([r.code, r.stdout]).toEqual([5, '']);
      const message =
        `reconciliations record ${first.id} was created by an earlier run with idempotency key ${key} and has been deleted since; ` +
        "the platform answered with that run's stored answer";
      const hint = 'to make a new record, give the data another idempotency_key (or none)';
      if (flags.length === 0) expect(r.stderr).toBe(`error: ${message}; ${hint}\n`);
      else expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'record_deleted', message, hint });
    },
  );

  it('a first run says "created"; a run whose every answer is lost names the key to put in the data', async () => {
    const fresh = await svc.run(create({ name: 'once' }));
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toMatch(
      /^✓ created reconciliations record rec_\w+ in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n$/,
    );

    lost.lose('/v1/reconciliations', 99);
    const env = { env: { SVC_BASE_URL: lost.proxy().url, SVC_MAX_RETRIES: '1' } };
    const r = await svc.run(create({ name: 'lost' }), env);
    expect([r.code, r.stdout]).toEqual([1, '']);
    const key = /"idempotency_key":"(svc_[0-9a-f-]{36})"/.exec(r.stderr)?.[1];
    expect(r.stderr).toBe(
      'error: injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change (HTTP 503, service_unavailable); ' +
        `re-run with "idempotency_key":"${key}" in the data to get the same answer without creating a second record (the platform keeps it for 24 hours)\n`,
    );
    lost.stop();
    const again = await svc.run(create({ name: 'lost', idempotency_key: key }));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^reconciliations record rec_\w+ was already created by an earlier run/);
  });
});

describe('svc records delete --json: the verdict beside the record, never among its fields', () => {
  it.each([['already_deleted'], ['deleted'], ['written_off']])(
    'a record with its own "outcome": %j',
    async (own) => {
      const record = await made({ summary: 'FX diff', outcome: own });
      const argv = ['records', 'delete', 'reconciliations', record.id, '--yes', '--json'];
      const first = await svc.run(argv);
      expect(first.code, first.stderr).toBe(0);
      const deleted = JSON.parse(first.stdout);
      expect(deleted).toEqual({
        outcome: 'deleted',
        record: {
          ...record,
          soft_delete: true,
          ...pick(deleted.record, 'deleted_at', 'purge_at', 'updated_at'),
        },
      });
      expect(deleted.record.outcome).toBe(own);
      const again = await svc.run(argv);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ outcome: 'already_deleted', record: deleted.record });
    },
  );
});

const pick = (o: Record<string, unknown>, ...keys: string[]) =>
  Object.fromEntries(keys.map((k) => [k, o[k]]));
