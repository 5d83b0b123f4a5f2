/**
 * `svc api` sends the body as given and prints the answer as it came (s11 findings C1, H1, H3,
 * M1, M3): --input is sent byte for byte unless svc adds an idempotency key to a platform POST,
 * and then a number, a key given twice or nesting that re-encoding would change is refused; -F
 * numbers a double cannot hold are refused (2e308 was sent as null); an answer's numbers and
 * keys are printed as they came (12345678901234567891 was printed as 12345678901234567000).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { answers, hostileEnv, useHostileServer } from '../../helpers/hostile.js';
import { tempDir } from '../../helpers/temp.js';

const dirs = useTempDirs();
const server = useHostileServer();
let dir: string;

beforeAll(() => {
  dir = tempDir('svc-api-json-');
});

async function against(argv: string[], stdin?: string | Buffer) {
  const s = await server();
  s.answer(answers.json(200, { ok: true }));
  const r = await runInProcess(
    ['api', ...argv],
    { ...dirs(), ...hostileEnv(s) },
    stdin === undefined ? {} : { stdin },
  );
  return { r, seen: s.seen.map((q) => q.body) };
}

describe('--input (M1, M3, H1, H3)', () => {
  it('sends the bytes as given where svc adds nothing (a PATCH, a path outside /v1)', async () => {
    const text = '{"a":9007199254740993,"a":2,"d":1.50,"e":1e400, "u":"\\u00e9"}';
    for (const [method, path] of [
      ['PATCH', '/v1/reconciliations/rec_1'],
      ['POST', '/x/y'],
    ]) {
      const { r, seen } = await against([method!, path!, '--input', '-'], text);
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(seen).toEqual([text]);
    }
  });

  it('refuses bytes that are not UTF-8, naming the offset, and sends nothing', async () => {
    const path = join(dir, 'latin1.json');
    writeFileSync(path, Buffer.from('{"s":"\xff\xfe"}', 'latin1'));
    const { r, seen } = await against(['PATCH', '/x/y', '--input', path]);
    expect([r.code, r.stdout, r.stderr, seen]).toEqual([
      2,
      '',
      `error: --input ${path} is not UTF-8 (byte 0xFF at offset 6); save it as UTF-8\n`,
      [],
    ]);
  });

  it('a platform POST gets its idempotency key, its numbers as typed, and is refused where the text is ambiguous', async () => {
    const ok = await against(['POST', '/v1/reconciliations', '--input', '-'], '{"amount":1.50}');
    expect(ok.r.code, ok.r.stderr).toBe(0);
    expect(JSON.parse(ok.seen[0]!)).toEqual({ amount: 1.5, idempotency_key: expect.any(String) });
    const big = await against(
      ['POST', '/v1/reconciliations', '--input', '-'],
      '{"amount_minor":9007199254740993}',
    );
    expect(big.r.code, big.r.stderr).toBe(0);
    expect(big.seen[0]).toMatch(/^\{"amount_minor":9007199254740993,"idempotency_key":"svc_/);
    for (const [text, message] of <Array<[string, string]>>[
      ['{"a":1,"a":2}', '"a" is given twice; keep one'],
      [
        `${'{"a":'.repeat(20000)}1${'}'.repeat(20000)}`,
        'nests 20000 levels deep; svc sends JSON at most 512 levels deep',
      ],
    ]) {
      const { r, seen } = await against(['POST', '/v1/reconciliations', '--input', '-'], text);
      expect([r.code, r.stdout, seen]).toEqual([2, '', []]);
      expect(r.stderr).toBe(`error: --input -${message.startsWith('nests') ? ' ' : ': '}${message}\n`);
    }
  });
});

describe('-F numbers (C1, H1; attack27b F3)', () => {
  it.each([['2e308'], ['9007199254740995']])('-F amount=%s is sent as typed', async (n) => {
    const { r, seen } = await against(['PATCH', '/v1/reconciliations/rec_1', '-F', `amount=${n}`]);
    expect([r.code, r.stderr, seen]).toEqual([0, '', [`{"amount":${n}}`]]);
  });

  it('-F with a JSON object sends its numbers as typed', async () => {
    const { r, seen } = await against(['PATCH', '/x', '-F', 'o={"n":1e400}']);
    expect([r.code, r.stderr, seen]).toEqual([0, '', ['{"o":{"n":1e400}}']]);
  });
});

describe('the answer as it came (H1)', () => {
  it('prints numbers and keys as the server sent them, laid out', async () => {
    const s = await server();
    s.answer(answers.raw(200, '{"x":12345678901234567891,"y":1.10,"d":1,"d":2,"e":[]}', 'application/json'));
    const r = await runInProcess(['api', '/v1/x'], { ...dirs(), ...hostileEnv(s) });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      '{\n  "x": 12345678901234567891,\n  "y": 1.10,\n  "d": 1,\n  "d": 2,\n  "e": []\n}\n',
    );
    const line = await runInProcess(['api', '/v1/x', '--ndjson'], { ...dirs(), ...hostileEnv(s) });
    expect(line.stdout).toBe('{"x":12345678901234567891,"y":1.10,"d":1,"d":2,"e":[]}\n');
  });
});

describe('--paginate and error answers as they came (s11 review-a 3)', () => {
  const BODY = '{"a":"x\\u2028y\\/z\\u0000w","n":12345678901234567891,"f":1.10,"e":1E400,"k":1,"k":2}';

  it('--paginate prints an answer that is not a list as it came', async () => {
    const s = await server();
    s.answer(answers.raw(200, BODY, 'application/json'));
    const r = await runInProcess(['api', '/v1/x', '--paginate', '--ndjson'], { ...dirs(), ...hostileEnv(s) });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `${BODY}\n`, '']);
  });

  it.each([
    ['plain', [], 'laid'],
    ['--ndjson', ['--ndjson'], 'compact'],
  ])('an error answer is printed as it came (%s), and the error follows', async (_mode, flags, layout) => {
    const s = await server();
    const body = '{"error":{"code":"x","message":"m","n":12345678901234567891,"k":1,"k":2}}';
    s.answer(answers.raw(409, body, 'application/json'));
    for (const method of ['GET', 'DELETE']) {
      const r = await runInProcess(
        ['api', method, '/v1/err', ...flags, ...(method === 'DELETE' ? ['--yes'] : [])],
        {
          ...dirs(),
          ...hostileEnv(s),
        },
      );
      expect(r.code).toBe(6);
      expect(r.stdout).toBe(
        layout === 'compact'
          ? `${body}\n`
          : '{\n  "error": {\n    "code": "x",\n    "message": "m",\n    "n": 12345678901234567891,\n    "k": 1,\n    "k": 2\n  }\n}\n',
      );
    }
  });
});
