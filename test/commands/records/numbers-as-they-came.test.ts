/**
 * A platform that writes numbers a double does not hold (review s13 api13, findings 4 and 8):
 * `svc records get/ls` printed 9007199254740993 as …992 and -0 as 0, and `svc records update`
 * compared a patch with the record as doubles, so it said "already has those fields" and sent no
 * PATCH for values the record does not hold. The numbers are printed as they came, and a patch
 * touching such a number is sent (the server decides).
 */
import { describe, expect, it } from 'vitest';
import { mergePatch } from '../../../src/api/merge-patch.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { HOSTILE_TENANT, hostileEnv, useHostileServer } from '../../helpers/hostile.js';

const hostile = useHostileServer();
const dirs = useTempDirs();

/** The record's own fields, each as the platform writes it. */
const OWN: Array<[string, string]> = [
  ['fx_rate', '1.000000000000000001'],
  ['wei', '1500000000000000001'],
  ['big2', '9007199254740993'],
  ['neg', '-0'],
  ['amount', '100.50'],
  ['e', '1E2'],
  ['usd', '1234567890.12'],
  ['nested', '{"minor":12345678901234567891}'],
  ['name', '"x"'],
];
const record = (updated: string, own: Array<[string, string]>) =>
  `{"id":"rec_1","surface":"reconciliations","tenant_id":"${HOSTILE_TENANT}","created_at":"2026-01-01T00:00:00Z","updated_at":"${updated}","created_by":"usr_1","soft_delete":false,"deleted_at":null,"purge_at":null,${own.map(([k, v]) => `"${k}":${v}`).join(',')}}`;
const RECORD = record('2026-01-01T00:00:00Z', OWN);

async function platform(applies = true) {
  const server = await hostile();
  server.answer((req, res, received) => {
    const list = req.url?.startsWith('/v1/reconciliations?') || req.url === '/v1/reconciliations';
    res.writeHead(200, { 'content-type': 'application/json' });
    // A PATCH is answered with the record as changed (its top-level fields replaced, a later
    // updated_at), or, by a platform that ignores it, as it was.
    const patch = req.method === 'PATCH' ? (JSON.parse(received.body) as Record<string, unknown>) : {};
    const answer =
      req.method === 'PATCH' && applies
        ? record(
            '2026-01-02T00:00:00Z',
            OWN.map(([k, v]) => [k, k in patch ? JSON.stringify(patch[k]) : v]),
          )
        : RECORD;
    res.end(list ? `{"items":[${RECORD}],"next_cursor":null}` : answer);
  });
  return { server, env: { ...dirs(), ...hostileEnv(server) } };
}

describe('svc records get/ls print numbers as the platform wrote them', () => {
  it('--json, --ndjson and plain output keep every digit and sign', async () => {
    const { env } = await platform();
    const json = await runInProcess(['records', 'get', 'reconciliations', 'rec_1', '--json'], env);
    expect([json.code, json.stderr]).toEqual([0, '']);
    expect(json.stdout.replace(/\s/g, '')).toBe(RECORD);
    const ndjson = await runInProcess(['records', 'ls', 'reconciliations', '--ndjson'], env);
    expect([ndjson.code, ndjson.stdout]).toEqual([0, `${RECORD}\n`]);
    const plain = await runInProcess(['records', 'get', 'reconciliations', 'rec_1'], env);
    expect([plain.code, plain.stderr]).toEqual([0, '']);
    expect(plain.stdout).toContain('field.fx_rate\t1.000000000000000001\n');
    expect(plain.stdout).toContain('field.big2\t9007199254740993\n');
    expect(plain.stdout).toContain('field.neg\t-0\n');
    expect(plain.stdout).toContain('field.nested\t{"minor":12345678901234567891}\n');
    const table = await runInProcess(['records', 'ls', 'reconciliations'], env);
    expect(table.stdout).toContain('"wei":1500000000000000001');
  });
});

describe('svc records update never decides on a number a double does not hold', () => {
  it.each([
    ['{"fx_rate":1}'],
    ['{"wei":1500000000000000000}'],
    ['{"big2":9007199254740992}'],
    ['{"nested":{"minor":12345678901234567000}}'],
  ])('%s is sent, not "already has those fields"', async (patch) => {
    const { server, env } = await platform();
    const r = await runInProcess(['records', 'update', 'reconciliations', 'rec_1', '--data', patch], env);
    expect(r.stderr).not.toContain('already has those fields');
    expect([r.code, r.stderr]).toEqual([
      0,
      '✓ updated reconciliations record rec_1 in 00000000-0000-4000-8000-000000000001\n',
    ]);
    expect(server.seen.map((s) => s.method)).toEqual(['GET', 'PATCH']);
    expect(server.seen[1]!.body).toBe(patch);
  });

  it('an answer that does not hold the patch is said to, not "Updated" or "already has"', async () => {
    const { server, env } = await platform(false);
    const r = await runInProcess(
      ['records', 'update', 'reconciliations', 'rec_1', '--data', '{"fx_rate":1}', '--json'],
      env,
    );
    expect(server.seen.map((s) => s.method)).toEqual(['GET', 'PATCH']);
    expect([r.code, r.stderr]).toEqual([
      0,
      'warning: the platform answered the update, but its reconciliations record rec_1 does not hold the patch for fx_rate; check it with `svc records get reconciliations rec_1`\n',
    ]);
    expect(JSON.parse(r.stdout.replace(/1\.000000000000000001/, '"exact"')).fx_rate).toBe('exact');
  });

  it('a patch of other fields that the record has is still not sent', async () => {
    const { server, env } = await platform();
    const r = await runInProcess(
      ['records', 'update', 'reconciliations', 'rec_1', '--data', '{"name":"x","usd":1234567890.12}'],
      env,
    );
    expect([r.code, r.stderr]).toEqual([
      0,
      'nothing changed: reconciliations record rec_1 already has those fields\n',
    ]);
    expect(server.seen.map((s) => s.method)).toEqual(['GET']);
  });
});

describe('svc records update judges the answer by value (review s13 http #1)', () => {
  /** A platform storing decimals as a 2-decimal column answers them: 100.5 as 100.50, 1.1 as 1.10. */
  async function decimalPlatform(before: string) {
    const server = await hostile();
    let own = before;
    server.answer((req, res, received) => {
      if (req.method === 'PATCH') {
        const patch = JSON.parse(received.body) as Record<string, unknown>;
        const merged = mergePatch(JSON.parse(own), patch);
        own = JSON.stringify(merged, (_, v: unknown) =>
          typeof v === 'number' ? `#${v.toFixed(2)}#` : v,
        ).replace(/"#([^#]+)#"/g, '$1');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      const updated = req.method === 'PATCH' ? '2026-01-02T00:00:00Z' : '2026-01-01T00:00:00Z';
      res.end(record(updated, [['name', '"x"']]).replace(/}$/, `,${own.slice(1)}`));
    });
    return { server, env: { ...dirs(), ...hostileEnv(server) } };
  }

  it.each([
    ['{"amount":100.00}', '{"amount":100.5}'],
    ['{"amount":100.00}', '{"amount":100.50}'],
    ['{"meta":{"rate":1.10,"a":0.00}}', '{"meta":{"a":1}}'],
  ])('a record of %s patched with %s: "Updated", no warning', async (before, patch) => {
    const { server, env } = await decimalPlatform(before);
    const r = await runInProcess(['records', 'update', 'reconciliations', 'rec_1', '--data', patch], env);
    expect([r.code, r.stderr]).toEqual([
      0,
      '✓ updated reconciliations record rec_1 in 00000000-0000-4000-8000-000000000001\n',
    ]);
    expect(server.seen.map((s) => s.method)).toEqual(['GET', 'PATCH']);
  });

  it('a patch equal in value to what the record holds (100.5 for 100.50) changes nothing and is not sent', async () => {
    const { server, env } = await decimalPlatform('{"amount":100.50}');
    const r = await runInProcess(
      ['records', 'update', 'reconciliations', 'rec_1', '--data', '{"amount":100.5}'],
      env,
    );
    expect([r.code, r.stderr]).toEqual([
      0,
      'nothing changed: reconciliations record rec_1 already has those fields\n',
    ]);
    expect(server.seen.map((s) => s.method)).toEqual(['GET']);
  });
});

describe('small decimals are printed as written, alone in an answer (review s13 http #3)', () => {
  it('0.0000001 and 0.00000012 stay, not 1e-7 and 1.2e-7', async () => {
    const server = await hostile();
    const TINY = record('2026-01-01T00:00:00Z', [
      ['rate', '0.0000001'],
      ['fee', '0.00000012'],
    ]);
    server.answer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(TINY);
    });
    const env = { ...dirs(), ...hostileEnv(server) };
    const json = await runInProcess(['records', 'get', 'reconciliations', 'rec_1', '--json'], env);
    expect(json.stdout.replace(/\s/g, '')).toBe(TINY);
    const plain = await runInProcess(['records', 'get', 'reconciliations', 'rec_1'], env);
    expect(plain.stdout).toContain('field.rate\t0.0000001\n');
    expect(plain.stdout).toContain('field.fee\t0.00000012\n');
  });
});

describe('svc records delete prints the record as the platform wrote it (attack27b F2)', () => {
  const own: Array<[string, string]> = [
    ['amount', '100.50'],
    ['big', '9007199254740993'],
    ['neg', '-0'],
  ];
  const gone = () =>
    record('2026-01-02T00:00:00Z', own).replace(
      '"soft_delete":false,"deleted_at":null,"purge_at":null',
      '"soft_delete":true,"deleted_at":"2026-01-02T00:00:00Z","purge_at":"2026-02-01T00:00:00Z"',
    );
  it.each([
    ['deleted', false, '--json'],
    ['deleted', false, '--ndjson'],
    ['already deleted', true, '--json'],
    ['already deleted', true, '--ndjson'],
  ])('%s, %s', async (_, already, format) => {
    const server = await hostile();
    server.answer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.method === 'DELETE' || already ? gone() : record('2026-01-01T00:00:00Z', own));
    });
    const env = { ...dirs(), ...hostileEnv(server) };
    const r = await runInProcess(['records', 'delete', 'reconciliations', 'rec_1', '--yes', format], env);
    expect(r.code, r.stderr).toBe(0);
    // The digits, through whatever wrapper the verdict has.
    expect(r.stdout).toMatch(/"amount": ?100\.50[,}\n]/);
    expect(r.stdout).toMatch(/"big": ?9007199254740993[,}\n]/);
    expect(r.stdout).toMatch(/"neg": ?-0[,}\n]/);
  });
});

describe('an edited `records get --json` copy of such a record is a patch (attack27b F3)', () => {
  it('its numbers, printed by svc as they came, are sent as written; none is refused', async () => {
    const { server, env } = await platform();
    const got = await runInProcess(['records', 'get', 'reconciliations', 'rec_1', '--json'], env);
    // Only what the copy changes is sent (attack28b F5): a number it edits goes as written.
    const copy = got.stdout
      .replace('"name": "x"', '"name": "y"')
      .replace('"wei": 1500000000000000001', '"wei": 1500000000000000002');
    const r = await runInProcess(['records', 'update', 'reconciliations', 'rec_1', '--data-file', '-'], env, {
      stdin: copy,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('error');
    const sent = server.seen.find((s) => s.method === 'PATCH')!.body;
    expect(sent).toBe('{"wei":1500000000000000002,"name":"y"}');
  });

  it.each([['9007199254740993'], ['-0'], ['1e400'], ['1.0000000000000001']])(
    'a number typed in --data, %s, goes as typed too (as `svc api` sends it)',
    async (n) => {
      const { server, env } = await platform();
      const r = await runInProcess(
        ['records', 'update', 'reconciliations', 'rec_1', '--data', `{"fresh":${n}}`],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(server.seen.find((s) => s.method === 'PATCH')!.body).toBe(`{"fresh":${n}}`);
    },
  );
});

describe('a field line tells a string from the JSON value it reads as (attack27b F7)', () => {
  it('"12.50", "true", "null" and "[]" are quoted; 12.50, true, null and [] are not; other text is as it is', async () => {
    const server = await hostile();
    const REC = record('2026-01-01T00:00:00Z', [
      ['s_num', '"12.50"'],
      ['num', '12.50'],
      ['s_true', '"true"'],
      ['b', 'true'],
      ['s_null', '"null"'],
      ['nul', 'null'],
      ['arr', '[]'],
      ['s_arr', '"[]"'],
      ['s_quoted', '"\\"x\\""'],
      ['s_pad', '" 5"'],
      ['text', '"March close"'],
      ['empty', '""'],
    ]);
    server.answer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(REC);
    });
    const r = await runInProcess(['records', 'get', 'reconciliations', 'rec_1'], {
      ...dirs(),
      ...hostileEnv(server),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('field.'))).toEqual([
      'field.s_num\t"12.50"',
      'field.num\t12.50',
      'field.s_true\t"true"',
      'field.b\ttrue',
      'field.s_null\t"null"',
      'field.nul\tnull',
      'field.arr\t[]',
      'field.s_arr\t"[]"',
      'field.s_quoted\t"\\"x\\""',
      'field.s_pad\t" 5"',
      'field.text\tMarch close',
      'field.empty\t',
    ]);
  });
});
