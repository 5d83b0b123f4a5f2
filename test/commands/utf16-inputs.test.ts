import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

// attack20 F5: a file saved as UTF-16 (Windows PowerShell 5.1's `svc export > access.yaml`, with a
// byte-order mark; or without one) given to `plan -f`, `api --input` or `login --with-token` was
// "not UTF-8 (byte 0xFF at offset 0)" or "contains whitespace". Each names UTF-16 and the fix, in
// the words the bulk files use (system/input.ts utf16Words).

const svc = useSandboxContext();
const dir = useTempDir('svc-utf16-');
const utf16le = (text: string, bom = true) =>
  Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);
const utf16be = (text: string) => {
  const bytes = Buffer.from(text, 'utf16le').swap16();
  return Buffer.concat([Buffer.from([0xfe, 0xff]), bytes]);
};
const words = (encoding: string) =>
  `not UTF-8: it is ${encoding} (a NUL byte every other byte); save it as UTF-8, e.g. iconv -f ${encoding} -t UTF-8 FILE > NEW`;

const ACCESS = 'version: 1\nblocks:\n  - tenants: acme-treasury\n';

describe('UTF-16 inputs', () => {
  it.each([
    ['UTF-16LE', utf16le(ACCESS)],
    ['UTF-16LE', utf16le(ACCESS, false)],
    ['UTF-16BE', utf16be(ACCESS)],
  ])('plan -f of a %s access file names it and the fix', async (encoding, bytes) => {
    const file = join(dir, `access-${encoding}-${bytes[0]}.yaml`);
    writeFileSync(file, bytes);
    const r = await svc.run(['plan', '-f', file]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr.split('\n')[0]).toBe(`${file}:1: ${words(encoding)}`);
  });

  // Not as cut short (its last bytes are `\n\0`): review21d R21d-4 for the one without a BOM.
  it.each([
    ['with', true],
    ['without', false],
  ])('plan -f - of a UTF-16LE export on standard input, %s a byte-order mark', async (_with, bom) => {
    const r = await svc.run(['plan', '-f', '-'], { stdin: utf16le(ACCESS, bom) });
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([2, `stdin:1: ${words('UTF-16LE')}`]);
  });

  it('api --input - of a UTF-16LE body names it and the fix', async () => {
    const r = await svc.run(['api', 'POST', '/v1/roles', '--input', '-'], {
      stdin: utf16le('{"name":"x","permissions":["exception.read"]}'),
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: --input - is ${words('UTF-16LE')}\n`]);
  });

  it('login --with-token of a token saved as UTF-16 names it and the fix', async () => {
    const r = await svc.run(['login', '--with-token'], { stdin: utf16le('svc_sk_abc\n') });
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: standard input is ${words('UTF-16LE')}\n`]);
  });

  it('apply of a saved plan written as UTF-16 names it and the fix', async () => {
    const file = join(dir, 'plan16.json');
    writeFileSync(file, utf16le('{"svc_plan":1}'));
    const r = await svc.run(['apply', file, '--yes']);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: ${file} is ${words('UTF-16LE')}\n`]);
  });
});
