/**
 * `svc webhooks verify` and `svc webhooks sign`, in-process: exact stdout and stderr and the
 * exit code for each outcome (valid, mismatch with its likely cause, stale, malformed, unreadable
 * input), the payload from a file or byte for byte from stdin, the secret from a file or
 * SVC_WEBHOOK_SECRET, and --json. Random inputs and Stripe's signer: test/attack/verify-fuzz.test.ts.
 */
import { createHmac } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { useTempDir } from '../../helpers/temp.js';

const dirs = useTempDirs();
const run = (argv: string[], options: { env?: Record<string, string>; stdin?: string } = {}) =>
  runInProcess(argv, { ...dirs(), NO_COLOR: '1', ...options.env }, { stdin: options.stdin ?? '' });

const NOW = 1_750_000_000;
const dir = useTempDir('svc-verify-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const secretFile = join(dir, 'secret');
const body = join(dir, 'body.json');
const payload =
  '{"id":"evt_1","type":"webhook.test","created_at":"2025-06-15T15:06:40Z","tenant_id":"t","data":{}}';
const signature = createHmac('sha256', 'whsec_cli_secret').update(`${NOW}.${payload}`).digest('hex');
const header = `t=${NOW},v1=${signature}`;
const at = ['--at', String(NOW)];
const VALID =
  "valid: signed at 2025-06-15T15:06:40Z (0 s before the verifier's clock), v1 signature 1 matched\n";
const SPACE_WARNING = `warning: --secret-file ${join(dir, 'secret-sp')} has whitespace around the secret (beyond one final newline); it is used exactly as given\n`;

// Written before the tests, not when the file is collected (test/helpers/temp.ts).
beforeAll(() => {
  writeFileSync(secretFile, 'whsec_cli_secret', { mode: 0o600 });
  writeFileSync(join(dir, 'secret-nl'), 'whsec_cli_secret\n', { mode: 0o600 });
  writeFileSync(join(dir, 'secret-sp'), 'whsec_cli_secret \n', { mode: 0o600 });
  writeFileSync(join(dir, 'secret-bare'), 'cli_secret', { mode: 0o600 });
  writeFileSync(body, payload, { mode: 0o600 });
  writeFileSync(join(dir, 'body-nl.json'), `${payload}\n`, { mode: 0o600 });
  writeFileSync(join(dir, 'header'), `${header}\n`, { mode: 0o600 });
});

describe('svc webhooks verify', () => {
  it.each<[string, string[], number, string, string]>([
    ['a valid signature', ['--header', header, '--payload', body, ...at], 0, VALID, ''],
    [
      'the header from a file, with a newline',
      ['--header-file', join(dir, 'header'), '--payload', body, ...at],
      0,
      VALID,
      '',
    ],
    [
      'a payload with an added newline',
      ['--header', header, '--payload', join(dir, 'body-nl.json'), ...at],
      8,
      '',
      'error: the signature does not match the payload; the payload matches without its final newline (added by echo or an editor?); pass the raw body exactly as received\n',
    ],
    [
      'a secret file ending in a newline (removed, as every secret reader does)',
      ['--header', header, '--payload', body, '--secret-file', join(dir, 'secret-nl'), ...at],
      0,
      VALID,
      '',
    ],
    [
      'a secret file with a space before its newline',
      ['--header', header, '--payload', body, '--secret-file', join(dir, 'secret-sp'), ...at],
      8,
      '',
      `${SPACE_WARNING}error: the signature does not match the payload; the secret has surrounding whitespace (beyond one final newline, which svc removes) and matches without it; write it without (printf %s "$SECRET" > FILE)\n`,
    ],
    [
      'the secret without its whsec_ prefix (the platform signs with the whole string)',
      ['--header', header, '--payload', body, '--secret-file', join(dir, 'secret-bare'), ...at],
      8,
      '',
      'error: the signature does not match the payload; the secret matches with the whsec_ prefix in front of it: the platform signs with the whole secret as given, prefix included\n',
    ],
    [
      'a junk v1 next to the matching one (skipped, as Stripe does)',
      ['--header', `t=${NOW},v1=abc,v1=${signature}`, '--payload', body, ...at],
      0,
      "valid: signed at 2025-06-15T15:06:40Z (0 s before the verifier's clock), v1 signature 2 matched (v1 signature 1 skipped: not 64 hexadecimal digits)\n",
      '',
    ],
    [
      'a junk v1 and no match',
      ['--header', `t=${NOW},v1=${'0'.repeat(64)},v1=abc`, '--payload', body, ...at],
      8,
      '',
      "error: the signature does not match the payload; check that the secret is this webhook's (rotated recently?) and that the body is the raw request body, byte for byte (v1 signature 2 skipped: not 64 hexadecimal digits)\n",
    ],
    [
      'a timestamp 10 minutes old',
      ['--header', header, '--payload', body, '--at', String(NOW + 600)],
      9,
      '',
      "error: the signature is valid but its timestamp 1750000000 (2025-06-15T15:06:40Z) is 600 s before the verifier's clock, outside the tolerance of 300 s; a delayed or replayed request, or a wrong clock; --at UNIX_SECONDS verifies as of another time, --tolerance widens the window\n",
    ],
    [
      'a wider tolerance',
      ['--header', header, '--payload', body, '--at', String(NOW + 600), '--tolerance', '900'],
      0,
      "valid: signed at 2025-06-15T15:06:40Z (600 s before the verifier's clock), v1 signature 1 matched\n",
      '',
    ],
    [
      'a malformed header',
      ['--header', `t=${NOW}`, '--payload', body, ...at],
      2,
      '',
      'error: malformed signature header: the header has no v1= signature; expected X-SVC-Signature: t=<unix seconds>,v1=<64 hex digits>[,v1=…]\n',
    ],
    [
      'a missing payload file',
      ['--header', header, '--payload', join(dir, 'nope'), ...at],
      2,
      '',
      `error: cannot read --payload ${join(dir, 'nope')}: no such file\n`,
    ],
    [
      'no header',
      ['--payload', body],
      2,
      '',
      'error: give the X-SVC-Signature value with --header VALUE or --header-file FILE\n',
    ],
    [
      'no secret',
      ['--header', header, '--payload', body, '--secret-file', join(dir, 'missing')],
      2,
      '',
      `error: cannot read --secret-file ${join(dir, 'missing')}: no such file\n`,
    ],
    [
      'a bad --tolerance',
      ['--header', header, '--tolerance', 'soon'],
      2,
      '',
      'error: --tolerance must be an integer from 0 to 315360000, got "soon"\n',
    ],
    [
      'a bad --at',
      ['--header', header, '--at', '-1'],
      2,
      '',
      'error: --at must be a Unix time in whole seconds, got "-1"\n',
    ],
  ])('%s', async (_label, args, code, stdout, stderr) => {
    // The shared secret file unless the row gives its own (a flag is given once).
    const secret = args.includes('--secret-file') ? [] : ['--secret-file', secretFile];
    expect(await run(['webhooks', 'verify', ...secret, ...args])).toEqual({
      code,
      stdout,
      stderr,
    });
  });

  it('reads the payload from standard input byte for byte and the secret from SVC_WEBHOOK_SECRET; --json', async () => {
    const env = { SVC_WEBHOOK_SECRET: 'whsec_cli_secret' };
    const ok = await run(['webhooks', 'verify', '--header', header, '--json', ...at], {
      stdin: payload,
      env,
    });
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    const report = {
      valid: true,
      reason: 'valid',
      timestamp: NOW,
      matched: 1,
      age_seconds: 0,
      tolerance_seconds: 300,
    };
    expect(ok.stdout).toBe(`${JSON.stringify(report, null, 2)}\n`);

    const bad = await run(['webhooks', 'verify', '--header', header, '--json', ...at], {
      stdin: `${payload} `,
      env,
    });
    expect(bad.code).toBe(8);
    expect(JSON.parse(bad.stdout)).toEqual({ valid: false, reason: 'signature_mismatch', timestamp: NOW });
    expect(JSON.parse(bad.stderr).error).toMatchObject({ code: 'signature_mismatch', exit_code: 8 });

    const none = await run(['webhooks', 'verify', '--header', header, '--json'], { stdin: payload });
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stdout)).toMatchObject({
      valid: false,
      reason: 'unreadable_input',
      timestamp: null,
    });
  });
});

describe('svc webhooks sign', () => {
  it('prints the header over the exact bytes; it verifies in Stripe too', async () => {
    const r = await run(['webhooks', 'sign', '--secret-file', secretFile, '--payload', body, ...at]);
    expect(r).toEqual({ code: 0, stdout: `${header}\n`, stderr: '' });
    expect(
      Stripe.webhooks.signature!.verifyHeader(
        payload,
        header,
        'whsec_cli_secret',
        300,
        undefined,
        NOW * 1000,
      ),
    ).toBe(true);
  });

  it('--json from stdin and SVC_WEBHOOK_SECRET: the header, its timestamp and signature', async () => {
    const r = await run(['webhooks', 'sign', '--json', ...at], {
      stdin: payload,
      env: { SVC_WEBHOOK_SECRET: 'whsec_cli_secret' },
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toEqual({ header, timestamp: NOW, signature });
  });

  it('warns about whitespace around a secret from a file, and signs with it as given', async () => {
    const r = await run([
      'webhooks',
      'sign',
      '--secret-file',
      join(dir, 'secret-sp'),
      '--payload',
      body,
      ...at,
    ]);
    const spaced = createHmac('sha256', 'whsec_cli_secret ').update(`${NOW}.${payload}`).digest('hex');
    expect(r).toEqual({ code: 0, stdout: `t=${NOW},v1=${spaced}\n`, stderr: SPACE_WARNING });
  });
});
