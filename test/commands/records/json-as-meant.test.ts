/**
 * The JSON a user gives `svc records create/update` reaches the platform as meant, or is refused
 * with one line and exit 2 before anything is sent (s11 findings C1, H1, H3, M2, M3): a number a
 * double cannot hold as written (1e400 was sent as null, which deletes the field in a merge
 * patch; 9007199254740993 as 9007199254740992), nesting deep enough to overflow the stack, a key
 * given twice, and bytes that are not UTF-8 (they became U+FFFD).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';
import { tempDir } from '../../helpers/temp.js';

const svc = useSandboxContext();
let dir: string;
let id: string;

beforeAll(async () => {
  dir = tempDir('svc-json-');
  const made = await svc.run([
    'records',
    'create',
    'reconciliations',
    '--data',
    '{"name":"March close","amount":125000}',
    '--json',
  ]);
  expect(made.code, made.stderr).toBe(0);
  id = JSON.parse(made.stdout).id;
});

const file = (name: string, bytes: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

async function refused(argv: string[], stdin?: string | Buffer) {
  const before = await requestCount(svc.sandbox());
  const r = await svc.run(argv, stdin === undefined ? {} : { stdin });
  expect(await requestCount(svc.sandbox())).toBe(before);
  return [r.code, r.stdout, r.stderr];
}

describe('a number a double cannot hold as written (C1, H1; attack27b F3)', () => {
  // Sent as typed (json-as-written.ts), never as the double JSON.stringify would write (null for
  // 1e400, which a merge patch reads as "remove the field"): the platform judges it. The sandbox
  // keeps doubles, so it refuses each, naming the field; the record keeps its value.
  it.each([
    ['1e400', 'amount is 1e400, which is beyond the range of the numbers the platform stores'],
    ['-1e400', 'amount is -1e400, which is beyond the range of the numbers the platform stores'],
    [
      '9007199254740993',
      'amount is 9007199254740993, which has more digits than the platform stores (it would be 9007199254740992)',
    ],
    [
      '1.0000000000000001',
      'amount is 1.0000000000000001, which has more digits than the platform stores (it would be 1)',
    ],
  ])(
    'update --data {"amount":%s} is sent as typed; the platform refuses it, the field kept',
    async (n, message) => {
      const r = await svc.run([
        '--debug',
        'records',
        'update',
        'reconciliations',
        id,
        '--data',
        `{"amount":${n}}`,
      ]);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr.split('\n')).toContain(`> {"amount":${n}}`);
      expect(r.stderr).toMatch(
        new RegExp(
          `\\nerror: ${message.replace(/[().]/g, '\\$&')}; send it as a string \\(HTTP 400, invalid_request`,
        ),
      );
      const now = await svc.run(['records', 'get', 'reconciliations', id, '--json']);
      expect(JSON.parse(now.stdout).amount).toBe(125000);
    },
  );

  it('the platform names the path of a nested number, in create too', async () => {
    const r = await svc.run([
      'records',
      'create',
      'reconciliations',
      '--data',
      '{"name":"x","lines":[{"ref":12345678901234567891}]}',
    ]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(
      /^error: lines\[0\]\.ref is 12345678901234567891, which has more digits than the platform stores \(it would be 12345678901234567000\); send it as a string \(HTTP 400, invalid_request/,
    );
  });

  it('sends numbers a double holds as written (1.10, 1e2, 2^53): the bytes, not only the values', async () => {
    const data = '{"rate":1.10,"hundred":1e2,"top":9007199254740992,"x":"\\u00e9"}';
    const r = await svc.run([
      '--debug',
      'records',
      'update',
      'reconciliations',
      id,
      '--data',
      data,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')).toContain(`> ${data}`);
    expect(JSON.parse(r.stdout)).toMatchObject({ rate: 1.1, hundred: 100, top: 9007199254740992 });
  });

  it('an edited copy of `records get --json` goes out with its numbers as written (attack27b F1)', async () => {
    const got = await svc.run(['records', 'get', 'reconciliations', id, '--json']);
    const copy = got.stdout.replace(/\n}\n$/, ',\n  "fee": 12.50,\n  "e": 2E2\n}\n');
    const path = file('copy.json', copy);
    const r = await svc.run(['--debug', 'records', 'update', 'reconciliations', id, '--data-file', path]);
    expect(r.code, r.stderr).toBe(0);
    const sent = r.stderr.split('\n').find((line) => line.startsWith('> {'));
    expect(sent).toMatch(/"fee":12\.50,"e":2E2}$/);
  });
});

describe('deep nesting (H3)', () => {
  it('a --data-file 20,000 levels deep is one line, exit 2, nothing sent', async () => {
    const deep = file('deep.json', `${'{"a":'.repeat(20000)}1${'}'.repeat(20000)}`);
    for (const verb of [
      ['create', 'reconciliations'],
      ['update', 'reconciliations', id],
    ]) {
      expect(await refused(['records', ...verb, '--data-file', deep])).toEqual([
        2,
        '',
        `error: --data-file ${deep} nests 20000 levels deep; svc sends JSON at most 512 levels deep\n`,
      ]);
    }
  });
});

describe('a key given twice (M2)', () => {
  it('is refused as plan and apply refuse it, from --data and from stdin', async () => {
    expect(
      await refused(['records', 'update', 'reconciliations', id, '--data', '{"name":"B","name":"C"}']),
    ).toEqual([2, '', 'error: --data: "name" is given twice; keep one\n']);
    expect(
      await refused(
        ['records', 'create', 'reconciliations', '--data-file', '-'],
        '{"name":"n","meta":{"status":"open","status":"closed"}}',
      ),
    ).toEqual([2, '', 'error: --data-file -: "status" is given twice in "meta"; keep one\n']);
  });
});

describe('bytes that are not UTF-8 (M3)', () => {
  it('are refused naming the byte and its offset, never stored as U+FFFD', async () => {
    const latin1 = file('latin1.json', Buffer.from('{"name":"Caf\xe9"}', 'latin1'));
    expect(await refused(['records', 'create', 'reconciliations', '--data-file', latin1])).toEqual([
      2,
      '',
      `error: --data-file ${latin1} is not UTF-8 (byte 0xE9 at offset 12); save it as UTF-8\n`,
    ]);
  });

  it('a U+FFFD that is in the file, and a byte-order mark, are fine', async () => {
    const r = await svc.run(['records', 'create', 'reconciliations', '--data-file', '-', '--json'], {
      stdin: '\uFEFF{"name":"a\uFFFDb","c":"é"}',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'a\uFFFDb', c: 'é' });
  });
});
