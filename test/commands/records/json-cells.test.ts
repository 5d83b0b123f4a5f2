/**
 * A JSON cell stays JSON (s15 pipes15 F3): `records ls`'s "fields" column and `records get`'s
 * JSON-valued field lines went through the terminal sanitizer, which writes U+009B and U+007F as
 * `\x9b` and `\x7f` (not JSON escapes), so that row no longer parsed. They are written `\u009b`
 * and `\u007f`: every row parses to the record's own fields, and no raw control reaches a terminal.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { HOSTILE_TENANT, hostileEnv, useHostileServer } from '../../helpers/hostile.js';

const hostile = useHostileServer();
const dirs = useTempDirs();

const OWN = { name: 'c', desc: 'x\u009b2J y\u007f', meta: { note: 'line1\nline2\t\u009b\u202e' }, amount: 1 };
const RECORD = {
  id: 'rec_1',
  surface: 'reconciliations',
  tenant_id: HOSTILE_TENANT,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  created_by: 'usr_1',
  soft_delete: false,
  deleted_at: null,
  purge_at: null,
  ...OWN,
};

async function platform() {
  const server = await hostile();
  server.answer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const list = req.url?.startsWith('/v1/reconciliations?') || req.url === '/v1/reconciliations';
    res.end(JSON.stringify(list ? { items: [RECORD], next_cursor: null } : RECORD));
  });
  return { ...dirs(), ...hostileEnv(server) };
}

const RAW_CONTROL = /[\u007f-\u009f\u202e]/;

describe('JSON cells parse to the same document (F3)', () => {
  it('records ls: the fields column of a pipe is JSON, C1 and DEL as \\u escapes', async () => {
    const r = await runInProcess(['records', 'ls', 'reconciliations'], await platform());
    expect([r.code, r.stderr]).toEqual([0, '']);
    const cell = r.stdout.split('\n')[0]!.split('\t')[1]!;
    expect(cell).not.toMatch(RAW_CONTROL);
    expect(cell).toContain('\\u009b');
    expect(cell).toContain('\\u007f');
    expect(JSON.parse(cell)).toEqual(OWN);
  });

  it('records get: a JSON-valued field line is JSON; a string field stays text, made visible', async () => {
    const r = await runInProcess(['records', 'get', 'reconciliations', 'rec_1'], await platform());
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = new Map(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t') as [string, string]),
    );
    expect(lines.get('field.meta')).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(lines.get('field.meta')!)).toEqual(OWN.meta);
    expect(lines.get('field.desc')).toBe('x\\x9b2J y\\x7f');
  });
});
