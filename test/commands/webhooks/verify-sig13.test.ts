/**
 * `svc webhooks verify` and `sign`, session 13's signature findings: a secret that turns up in
 * the header is masked in --json on stdout; a payload read from an empty standard input is named
 * (sign warns, verify's hint says so) and a terminal is told it is being read; a secret file with
 * a byte-order mark or in UTF-16 is named, and a UTF-16 header file is said to be one; a capture
 * with two X-SVC-Signature lines is judged as listen judged it (joined, as HTTP does); a body with
 * a BOM or bytes that are not UTF-8 is named where a text-decoding verifier (stripe-node) differs.
 */
import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { useTempFiles } from '../../helpers/temp.js';

const dirs = useTempDirs();
const run = (argv: string[], options: { env?: Record<string, string>; stdin?: string; tty?: boolean } = {}) =>
  runInProcess(
    ['webhooks', ...argv],
    { ...dirs(), NO_COLOR: '1', ...options.env },
    { stdin: options.stdin ?? '', ...(options.tty ? { tty: { stdin: true } } : {}) },
  );

const NOW = 1_700_000_000;
const at = ['--at', String(NOW)];
const SECRET = 'whsec_test_secret_123456';
const made = useTempFiles('svc-verify-sig13-');
const _dir = made.dir;
const file = (name: string, bytes: string | Buffer) => made.file(name, bytes, { mode: 0o600 });
const secretFile = file('s.txt', SECRET);
const body = '{"id":"evt_1","type":"webhook.test"}';
const bodyFile = file('b.json', body);
const sig = (payload: string | Buffer, secret: string | Buffer = SECRET) =>
  `t=${NOW},v1=${createHmac('sha256', secret).update(`${NOW}.`).update(payload).digest('hex')}`;

describe('a secret in the header is masked in verify --json (finding 1)', () => {
  it('--header-file given the secret file, and the secret as a v1 value', async () => {
    const mixed = await run([
      'verify',
      '--secret-file',
      secretFile,
      '--header-file',
      secretFile,
      '--payload',
      bodyFile,
      '--json',
    ]);
    expect([mixed.code, JSON.parse(mixed.stdout)]).toEqual([
      2,
      {
        valid: false,
        reason: 'malformed_header',
        timestamp: null,
        message: 'element 1 of the header ("[redacted]") is not key=value',
      },
    ]);
    const asV1 = await run(['verify', '--header', `t=1,v1=${SECRET}`, '--payload', bodyFile, '--json'], {
      env: { SVC_WEBHOOK_SECRET: SECRET },
    });
    expect(asV1.stdout).not.toContain('test_secret');
    expect(JSON.parse(asV1.stdout).message).toBe(
      'v1 signature 1 is not 64 hexadecimal digits (HMAC-SHA256): character 1 is "w", got "[redacted]"',
    );
  });
});

describe('the payload from standard input is named when it is almost certainly a mistake (finding 5)', () => {
  it('sign warns about an empty standard input', async () => {
    const r = await run(['sign', '--secret-file', secretFile, ...at]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      `${sig('')}\n`,
      'warning: the payload read from standard input is empty (0 bytes): pass --payload FILE to sign a file\n',
    ]);
  });

  it("verify's mismatch names the empty standard input", async () => {
    const r = await run(['verify', '--secret-file', secretFile, '--header', sig(body), ...at]);
    expect([r.code, r.stderr]).toEqual([
      8,
      'error: the signature does not match the payload; the payload read from standard input is empty (0 bytes): pass --payload FILE\n',
    ]);
  });

  it('a terminal is told it is being read', async () => {
    const r = await run(['sign', '--secret-file', secretFile, ...at], { stdin: body, tty: true });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      `${sig(body)}\n`,
      `--payload - reads the payload from standard input, which is this terminal: paste it, then press ${process.platform === 'win32' ? 'Ctrl-Z and Enter' : 'Ctrl-D'} on an empty line\n`,
    ]);
  });
});

describe('secret and header files in another encoding (finding 6)', () => {
  const h = sig(body);
  it.each([
    [
      'a secret file with a UTF-8 byte-order mark',
      file('s-bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${SECRET}\r\n`)])),
      'UTF-8 with a byte-order mark',
    ],
    [
      'a UTF-16 secret file (PowerShell 5)',
      file('s16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(SECRET, 'utf16le')])),
      'UTF-16LE',
    ],
  ])('%s: named in the warning and the hint', async (_name, path, encoding) => {
    const r = await run(['verify', '--secret-file', path, '--header', h, '--payload', bodyFile, ...at]);
    expect([r.code, r.stderr]).toEqual([
      8,
      `warning: --secret-file ${path} is ${encoding}: its bytes are used as they are; save it as plain UTF-8 (printf %s "$SECRET" > FILE)\n` +
        `error: the signature does not match the payload; the secret is ${encoding} and matches once read as plain UTF-8 text: save it as plain UTF-8 (printf %s "$SECRET" > FILE)\n`,
    ]);
    const signed = await run(['sign', '--secret-file', path, '--payload', bodyFile, ...at]);
    expect(signed.stderr).toContain(`warning: --secret-file ${path} is ${encoding}`);
  });

  it('a UTF-16 header file is said to be one', async () => {
    const path = file('h16', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${h}\r\n`, 'utf16le')]));
    const r = await run([
      'verify',
      '--secret-file',
      secretFile,
      '--header-file',
      path,
      '--payload',
      bodyFile,
      ...at,
    ]);
    expect([r.code, r.stderr]).toEqual([
      2,
      `error: --header-file ${path} is not UTF-8: it is UTF-16LE (a NUL byte every other byte); save it as UTF-8, e.g. iconv -f UTF-16LE -t UTF-8 FILE > NEW\n`,
    ]);
  });
});

describe('two X-SVC-Signature lines in a capture (finding 4)', () => {
  it('are joined as HTTP joins them, so verify judges the capture as listen judged the request', async () => {
    const other = sig(body, 'whsec_other').replace(/^t=\d+,/, '');
    const capture = file(
      '0001-request.headers',
      `POST / HTTP/1.1\r\nX-SVC-Signature: ${other}\r\nX-SVC-Signature: ${sig(body)}\r\n`,
    );
    const r = await run([
      'verify',
      '--secret-file',
      secretFile,
      '--header-file',
      capture,
      '--payload',
      bodyFile,
      ...at,
    ]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      "valid: signed at 2023-11-14T22:13:20Z (0 s before the verifier's clock), v1 signature 2 matched\n",
      '',
    ]);
  });
});

describe('a body with a BOM or bytes that are not UTF-8 (finding 3)', () => {
  it.each([
    [
      'starts with a UTF-8 byte-order mark',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]),
    ],
    ['is not UTF-8 (byte 0xE9 at offset 25)', Buffer.from('{"id":"evt_x","note":"caf\xe9"}', 'latin1')],
  ])(
    'the payload %s: sign warns, and a text-decoded signature is named in the hint',
    async (words, bytes) => {
      const path = file(`b-${words.length}.json`, bytes);
      const signed = await run(['sign', '--secret-file', secretFile, '--payload', path, ...at]);
      expect(signed.stderr).toBe(
        `warning: the payload ${words}: svc signs its raw bytes, as the platform does; a verifier that decodes it as text first (stripe-node given a Buffer) will not match\n`,
      );
      // stripe-node's verifier hashes the body decoded as text, so it refuses svc's header for these bytes…
      const header = signed.stdout.trim();
      expect(() => Stripe.webhooks.constructEvent(bytes, header, SECRET, 0)).toThrow(/No signatures found/);
      // …and a signer that hashed that text gets a mismatch whose hint says why.
      const textSigned = sig(new TextDecoder('utf-8').decode(bytes));
      const r = await run([
        'verify',
        '--secret-file',
        secretFile,
        '--header',
        textSigned,
        '--payload',
        path,
        ...at,
      ]);
      expect([r.code, r.stderr]).toEqual([
        8,
        `error: the signature does not match the payload; the payload ${words}, and the signature matches it decoded as UTF-8 text (as stripe-node does): the signer hashed text, not the raw body; the platform signs the raw bytes\n`,
      ]);
    },
  );
});

describe('a secret of whitespace only', () => {
  it('is a mismatch whose hint names the whitespace (no likely fix leaves an empty key)', async () => {
    const r = await run(['verify', '--header', sig(body), '--payload', bodyFile, ...at], {
      env: { SVC_WEBHOOK_SECRET: ' ' },
    });
    expect([r.code, r.stderr]).toEqual([
      8,
      'error: the signature does not match the payload; the secret has surrounding whitespace (beyond one final newline, which svc removes); a signing secret never does\n',
    ]);
  });
});
