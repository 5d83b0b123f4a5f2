/**
 * `svc api` prints a JSON answer as it came after the HTTP client has read it (s13 closing note:
 * printBody parsed a large body a second time only to learn whether it was well formed: about
 * 1 s and a second copy of the tree for 50 MB). The body is parsed once; what is printed is the
 * same to the byte, well formed or not, with or without a JSON content type.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { hostileEnv, useHostileServer } from '../../helpers/hostile.js';

const hostile = useHostileServer();
const dirs = useTempDirs();
afterEach(() => vi.restoreAllMocks());

const NUMBERS =
  '{"items":[{"amount":100.50,"rate":1.000000000000000001,"big":12345678901234567891,"k":1,"k":2}],"next_cursor":null}';

async function serving(body: string, type: string | undefined) {
  const s = await hostile();
  s.answer((_req, res) => {
    res.writeHead(200, type === undefined ? {} : { 'content-type': type });
    res.end(body);
  });
  return { ...dirs(), ...hostileEnv(s) };
}

/** svc api PATH against an answer of `body`, and how often JSON.parse was given that body. */
async function printed(body: string, type: string | undefined, argv: string[] = []) {
  const env = await serving(body, type);
  const parse = vi.spyOn(JSON, 'parse');
  const r = await runInProcess(['api', '/v1/reconciliations', ...argv], env);
  const parses = parse.mock.calls.filter(([text]) => text === body).length;
  return { ...r, parses };
}

describe('svc api: a JSON answer is parsed once and printed as it came', () => {
  it('laid out with every number and key as written', async () => {
    const r = await printed(NUMBERS, 'application/json');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      '{\n  "items": [\n    {\n      "amount": 100.50,\n      "rate": 1.000000000000000001,\n      "big": 12345678901234567891,\n      "k": 1,\n      "k": 2\n    }\n  ],\n  "next_cursor": null\n}\n',
    );
    expect(r.parses).toBe(1);
  });

  it('--paginate on an answer that is not a list: parsed once, printed as it came', async () => {
    const one = '{"id":"rec_1","amount":100.50}';
    const r = await printed(one, 'application/json', ['--paginate']);
    expect([r.code, r.stderr, r.stdout]).toEqual([0, '', '{\n  "id": "rec_1",\n  "amount": 100.50\n}\n']);
    expect(r.parses).toBe(1);
  });

  it.each([
    ['malformed JSON under a JSON type', '{"items":[1,2', 'application/json'],
    ['text without a type', '{not json}', undefined],
    ['text under a text type', 'account,amount\nACC-1,100.00', 'text/csv'],
  ])('%s: printed as given, a newline added', async (_name, body, type) => {
    const r = await printed(body, type);
    expect([r.code, r.stderr, r.stdout]).toEqual([0, '', `${body}\n`]);
  });

  it('compact JSON under no type that starts like JSON: laid out as with a JSON type', async () => {
    const r = await printed('{"a":[1.0,{}]}', undefined);
    expect([r.code, r.stderr, r.stdout]).toEqual([0, '', '{\n  "a": [\n    1.0,\n    {}\n  ]\n}\n']);
  });
});
