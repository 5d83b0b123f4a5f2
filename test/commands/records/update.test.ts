/**
 * `svc records update` with a merge patch that changes nothing: it says so and sends nothing (as
 * `webhooks update`), so updated_at keeps its time; a patch that changes something is sent. A
 * soft-deleted record is refused whatever the patch (exit 6), as the platform refuses it.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { hostileEnv, useHostileServer } from '../../helpers/hostile.js';
import { call, useLiveAdmin } from '../../helpers/sandbox.js';

const { sandbox, env, svc } = useLiveAdmin();
const hostile = useHostileServer();
const dirs = useTempDirs();

async function patches(): Promise<number> {
  const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([key]) => key.startsWith('PATCH /v1/accounts/'))
    .reduce((sum, [, n]) => sum + n, 0);
}

async function created(): Promise<Record<string, any>> {
  const r = await svc(
    [
      'records',
      'create',
      'accounts',
      '--data',
      '{"name":"Cash","limits":{"daily":10},"tags":["a"]}',
      '--json',
    ],
    { env },
  );
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('svc records update: a patch that changes nothing', () => {
  it.each([
    ['{"name":"Cash"}', 'already has those fields'],
    ['{"limits":{"daily":10},"gone":null,"tags":["a"]}', 'already has those fields'],
    ['{}', 'the patch {} names no field'],
  ])('%s: "nothing changed", nothing sent, updated_at kept', async (patch, words) => {
    const record = await created();
    const before = await patches();
    const piped = await svc(['records', 'update', 'accounts', record.id, '--data', patch], { env });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toBe(
      words === 'already has those fields'
        ? `nothing changed: accounts record ${record.id} already has those fields\n`
        : `nothing changed: the patch {} names no field; accounts record ${record.id} is as it was\n`,
    );
    expect(piped.stdout).toContain(`\nupdated\t${record.updated_at}\n`);
    const json = await svc(['records', 'update', 'accounts', record.id, '--data', patch, '--json'], { env });
    expect([json.code, json.stderr]).toEqual([0, '']);
    expect(JSON.parse(json.stdout)).toEqual(record);
    expect(await patches()).toBe(before);
  });

  it('a patch that changes a field is sent and says updated', async () => {
    const record = await created();
    const before = await patches();
    const r = await svc(['records', 'update', 'accounts', record.id, '--data', '{"limits":{"daily":11}}'], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`✓ updated accounts record ${record.id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n`);
    expect(r.stdout).toContain('\nfield.limits\t{"daily":11}\n');
    expect(await patches()).toBe(before + 1);
  });
});

describe('svc records update of a soft-deleted record', () => {
  const hint =
    'a deleted record cannot be changed; `svc records create accounts --data JSON` makes a new one';

  it.each([['{}'], ['{"name":"Cash"}']])(
    '%s: refused as the platform refuses it (exit 6), nothing sent',
    async (patch) => {
      const record = await created();
      const removed = await svc(['records', 'delete', 'accounts', record.id, '--yes', '--json'], { env });
      const deletedAt = JSON.parse(removed.stdout).record.deleted_at as string;
      const before = await patches();
      const r = await svc(['records', 'update', 'accounts', record.id, '--data', patch], { env });
      expect(r).toEqual({
        code: 6,
        stdout: '',
        stderr: `error: accounts record ${record.id} is deleted (since ${deletedAt}); nothing was sent; ${hint}\n`,
      });
      const json = await svc(['records', 'update', 'accounts', record.id, '--data', patch, '--json'], {
        env,
      });
      expect([json.code, json.stdout]).toEqual([6, '']);
      expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'record_deleted', exit_code: 6, hint });
      expect(await patches()).toBe(before);
    },
  );

  it("deleted between svc's read and its PATCH: the platform's 409 with the same hint", async () => {
    // A record that reads as live, then is refused: the platform's words, with the CLI's fix.
    const server = await hostile();
    const id = 'rec_1';
    server.answer((req, res) => {
      const live = { id, surface: 'accounts', soft_delete: false, deleted_at: null, name: 'Cash' };
      const refused = { error: { code: 'record_deleted', message: `accounts record ${id} is deleted` } };
      res.writeHead(req.method === 'GET' ? 200 : 409, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.method === 'GET' ? live : refused));
    });
    const r = await runInProcess(['records', 'update', 'accounts', id, '--data', '{"name":"New"}'], {
      ...dirs(),
      ...hostileEnv(server),
    });
    expect(server.seen.map((s) => s.method)).toEqual(['GET', 'PATCH']);
    expect(r).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: accounts record ${id} is deleted (HTTP 409, record_deleted); ${hint}\n`,
    });
  });
});
