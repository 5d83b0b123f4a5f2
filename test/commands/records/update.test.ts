/**
 * `svc records update` with a merge patch that changes nothing: it says so and sends nothing (as
 * `webhooks update`), so updated_at keeps its time; a patch that changes something is sent.
 */
import { describe, expect, it } from 'vitest';
import { call, useLiveAdmin } from '../../helpers/sandbox.js';

const { sandbox, env, svc } = useLiveAdmin();

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
  ])('%s: "Nothing changed", nothing sent, updated_at kept', async (patch, words) => {
    const record = await created();
    const before = await patches();
    const piped = await svc(['records', 'update', 'accounts', record.id, '--data', patch], { env });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toBe(
      words === 'already has those fields'
        ? `Nothing changed: accounts record ${record.id} already has those fields.\n`
        : `Nothing changed: the patch {} names no field; accounts record ${record.id} is as it was.\n`,
    );
    expect(piped.stdout).toContain(`\nupdated\t${record.updated_at}\n`);
    const json = await svc(['records', 'update', 'accounts', record.id, '--data', patch, '--json'], { env });
    expect([json.code, json.stderr]).toEqual([0, '']);
    expect(JSON.parse(json.stdout)).toEqual(record);
    expect(await patches()).toBe(before);
  });

  it('a patch that changes a field is sent and says Updated', async () => {
    const record = await created();
    const before = await patches();
    const r = await svc(['records', 'update', 'accounts', record.id, '--data', '{"limits":{"daily":11}}'], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`✓ Updated accounts record ${record.id}\n`);
    expect(r.stdout).toContain('\nfield.limits\t{"daily":11}\n');
    expect(await patches()).toBe(before + 1);
  });
});
