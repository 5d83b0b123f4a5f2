import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { SECRET_ENV } from '../../src/commands/webhooks/shared.js';
import { secretFromText } from '../../src/system/secret-text.js';
import { fakeIO, testDeps } from '../helpers/context.js';
import { svc } from '../helpers/svc.js';

/** `svc webhooks verify …` in-process, with raw bytes on standard input. */
async function verify(
  args: string[],
  env: Record<string, string | undefined>,
  stdin: Buffer = Buffer.alloc(0),
): Promise<{ code: number; stdout: string; stderr: string }> {
  const fake = fakeIO();
  fake.io.stdin = Readable.from([stdin]);
  const code = await runCli(['webhooks', 'verify', ...args], testDeps(fake.io, env));
  return { code, stdout: fake.stdout(), stderr: fake.stderr() };
}

/**
 * The documented rules, written again independently of src/webhooks/signature.ts: the exit
 * code `svc webhooks verify` must end with for a header, body, secret and clock.
 */
function expectedExit(
  header: string,
  body: Buffer,
  secret: string,
  now: number,
  tolerance = 300,
): 0 | 2 | 8 | 9 {
  let text = header.trim().replace(/^x-svc-signature\s*:\s*/i, '');
  if (text === '' || text.length > 8192) return 2;
  let t: number | undefined;
  const v1: string[] = [];
  for (const raw of text.split(',')) {
    const element = raw.trim();
    const eq = element.indexOf('=');
    if (eq <= 0) return 2;
    const key = element.slice(0, eq).trim();
    const value = element.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== undefined || !/^\d{1,12}$/.test(value)) return 2;
      t = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return 2;
      v1.push(value.toLowerCase());
    }
  }
  text = '';
  if (t === undefined || v1.length === 0 || v1.length > 16) return 2;
  const expected = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), body]))
    .digest('hex');
  if (!v1.includes(expected)) return 8;
  if (tolerance > 0 && Math.abs(now - t) > tolerance) return 9;
  return 0;
}

const REASONS: Record<number, string[]> = {
  0: ['valid'],
  2: ['malformed_header'],
  8: ['signature_mismatch'],
  9: ['timestamp_outside_tolerance'],
};

const NOW = 1_750_000_000;
const hex64 = fc.stringMatching(/^[0-9a-fA-F]{64}$/);
const sign = (secret: string, t: number, body: Buffer) =>
  createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), body]))
    .digest('hex');

/** Headers of every kind: valid, stale, tampered, structurally broken, and random text. */
function headerArb(secret: string, body: Buffer): fc.Arbitrary<string> {
  const t = fc.integer({ min: NOW - 1000, max: NOW + 1000 });
  return fc.oneof(
    t.map((ts) => `t=${ts},v1=${sign(secret, ts, body)}`),
    fc.tuple(t, hex64).map(([ts, other]) => `t=${ts},v1=${other},v1=${sign(secret, ts, body)}`),
    fc.tuple(t, hex64).map(([ts, other]) => `t=${ts},v1=${other}`),
    t.map((ts) => `t=${ts},v1=${sign(`${secret}x`, ts, body)}`),
    fc.tuple(t, fc.string()).map(([ts, junk]) => `t=${ts},v1=${junk}`),
    fc.tuple(fc.string(), hex64).map(([junk, sig]) => `t=${junk},v1=${sig}`),
    t.map((ts) => `v1=${sign(secret, ts, body)},t=${ts}`),
    t.map((ts) => `t=${ts},t=${ts},v1=${sign(secret, ts, body)}`),
    t.map((ts) => ` X-SVC-Signature: t=${ts},v0=abc, v1=${sign(secret, ts, body)} `),
    fc
      .array(fc.constantFrom('t=', 'v1=', ',', '=', ' ', '1', 'a', 'f', '0', 'v0=', '\t', 'é'), {
        maxLength: 30,
      })
      .map((p) => p.join('')),
    fc.string({ maxLength: 120 }),
    fc.string({ unit: 'binary', maxLength: 80 }),
  );
}

describe('svc webhooks verify: property tests', () => {
  it('ends every random or malformed header, body and secret with its documented exit code (10,000 cases)', async () => {
    const tally: Record<number, number> = { 0: 0, 2: 0, 8: 0, 9: 0 };
    const cases = fc
      .tuple(
        fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\u0000')),
        fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      )
      .chain(([secret, body]) => fc.tuple(fc.constant(secret), fc.constant(body), headerArb(secret, body)));
    await fc.assert(
      fc.asyncProperty(cases, fc.boolean(), async ([secret, body, header], json) => {
        // svc reads the secret as every secret is read: one final newline removed, the rest as given.
        const used = secretFromText(secret, SECRET_ENV, { trim: false });
        const expected = used.secret === '' ? 2 : expectedExit(header, body, used.secret, NOW);
        const warning = used.warning ? `warning: ${used.warning}\n` : '';
        tally[expected]!++;
        const r = await verify(
          [`--header=${header}`, '--at', String(NOW), ...(json ? ['--json'] : [])],
          { SVC_WEBHOOK_SECRET: secret },
          body,
        );
        expect(r.code).toBe(expected);
        expect(r.stderr).not.toContain('this is a bug');
        if (json) {
          const report = JSON.parse(r.stdout);
          expect(report.valid).toBe(expected === 0);
          expect(REASONS[expected]).toContain(report.reason);
          if (expected !== 2) expect(Number.isInteger(report.timestamp)).toBe(true);
          if (expected !== 0)
            expect(JSON.parse(r.stderr.slice(warning.length)).error.exit_code).toBe(expected);
        } else if (expected === 0) {
          expect(r.stdout).toMatch(/^valid: signed at /);
          expect(r.stderr).toBe(warning);
        } else {
          expect(r.stdout).toBe('');
          expect(r.stderr.startsWith(warning)).toBe(true);
          expect(r.stderr.slice(warning.length)).toMatch(/^error: [^\n]+\n$/);
        }
      }),
      { numRuns: 10_000 },
    );
    // Every outcome was exercised many times.
    for (const code of [0, 2, 8, 9]) expect(tally[code], `exit ${code}`).toBeGreaterThan(300);
  }, 300_000);

  it('verifies what Stripe signs and what `svc webhooks sign` signs, whatever the bytes (2,000 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/\s|\u0000/.test(s)),
        fc.string({ minLength: 1, maxLength: 300 }),
        async (secret, payload) => {
          const env = { SVC_WEBHOOK_SECRET: secret };
          const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: NOW });
          expect(
            (await verify([`--header=${header}`, '--at', String(NOW)], env, Buffer.from(payload))).code,
          ).toBe(0);
          const fake = fakeIO({ stdin: payload });
          expect(await runCli(['webhooks', 'sign', '--at', String(NOW)], testDeps(fake.io, env))).toBe(0);
          const signed = fake.stdout().trimEnd();
          expect(
            Stripe.webhooks.signature!.verifyHeader(payload, signed, secret, 300, undefined, NOW * 1000),
          ).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  }, 120_000);
});

describe('svc webhooks verify and sign: the binary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-verify-'));
  const secretFile = join(dir, 'secret');
  const body = join(dir, 'body.json');
  const payload =
    '{"id":"evt_1","type":"webhook.test","created_at":"2025-06-15T15:06:40Z","tenant_id":"t","data":{}}';
  writeFileSync(secretFile, 'whsec_cli_secret');
  writeFileSync(join(dir, 'secret-nl'), 'whsec_cli_secret\n');
  writeFileSync(join(dir, 'secret-sp'), 'whsec_cli_secret \n');
  writeFileSync(body, payload);
  writeFileSync(join(dir, 'body-nl.json'), `${payload}\n`);
  const header = `t=${NOW},v1=${sign('whsec_cli_secret', NOW, Buffer.from(payload))}`;
  writeFileSync(join(dir, 'header'), `${header}\n`);
  const at = ['--at', String(NOW)];

  it.each([
    [
      'a valid signature',
      ['--header', header, '--payload', body, ...at],
      0,
      '',
      /^valid: signed at 2025-06-15T15:06:40Z \(0 s before the verifier's clock\), v1 signature 1 matched\n$/,
    ],
    [
      'the header from a file, with a newline',
      ['--header-file', join(dir, 'header'), '--payload', body, ...at],
      0,
      '',
      /^valid/,
    ],
    [
      'a payload with an added newline',
      ['--header', header, '--payload', join(dir, 'body-nl.json'), ...at],
      8,
      'error: the signature does not match the payload; the payload matches without its final newline (added by echo or an editor?); pass the raw body exactly as received\n',
      /^$/,
    ],
    [
      'a secret file ending in a newline (removed, as every secret reader does)',
      ['--header', header, '--payload', body, '--secret-file', join(dir, 'secret-nl'), ...at],
      0,
      '',
      /^valid/,
    ],
    [
      'a secret file with a space before its newline',
      ['--header', header, '--payload', body, '--secret-file', join(dir, 'secret-sp'), ...at],
      8,
      `warning: --secret-file ${join(dir, 'secret-sp')} has whitespace around the secret (beyond one final newline); it is used exactly as given\nerror: the signature does not match the payload; the secret has surrounding whitespace (beyond one final newline, which svc removes) and matches without it; write it without (printf %s "$SECRET" > FILE)\n`,
      /^$/,
    ],
    [
      'a timestamp 10 minutes old',
      ['--header', header, '--payload', body, '--at', String(NOW + 600)],
      9,
      "error: the signature is valid but its timestamp 1750000000 (2025-06-15T15:06:40Z) is 600 s before the verifier's clock, outside the tolerance of 300 s; a delayed or replayed request, or a wrong clock; --at UNIX_SECONDS verifies as of another time, --tolerance widens the window\n",
      /^$/,
    ],
    [
      'a wider tolerance',
      ['--header', header, '--payload', body, '--at', String(NOW + 600), '--tolerance', '900'],
      0,
      '',
      /^valid/,
    ],
    [
      'a malformed header',
      ['--header', `t=${NOW}`, '--payload', body, ...at],
      2,
      'error: malformed signature header: the header has no v1= signature; expected X-SVC-Signature: t=<unix seconds>,v1=<64 hex digits>[,v1=…]\n',
      /^$/,
    ],
    [
      'a missing payload file',
      ['--header', header, '--payload', join(dir, 'nope'), ...at],
      2,
      `error: cannot read --payload ${join(dir, 'nope')}: no such file\n`,
      /^$/,
    ],
    [
      'no header',
      ['--payload', body],
      2,
      'error: give the X-SVC-Signature value with --header VALUE or --header-file FILE\n',
      /^$/,
    ],
    [
      'no secret',
      ['--header', header, '--payload', body, '--secret-file', join(dir, 'missing')],
      2,
      `error: cannot read --secret-file ${join(dir, 'missing')}: no such file\n`,
      /^$/,
    ],
    [
      'a bad --tolerance',
      ['--header', header, '--tolerance', 'soon'],
      2,
      'error: --tolerance must be an integer from 0 to 315360000, got "soon"\n',
      /^$/,
    ],
    [
      'a bad --at',
      ['--header', header, '--at', '-1'],
      2,
      'error: --at must be a Unix time in whole seconds, got "-1"\n',
      /^$/,
    ],
  ])('%s', async (_label, args, code, stderr, stdout) => {
    const r = await svc(['webhooks', 'verify', '--secret-file', secretFile, ...args]);
    expect(r.stderr).toBe(stderr);
    expect(r.stdout).toMatch(stdout);
    expect(r.code).toBe(code);
  });

  it('reads the payload from standard input byte for byte and the secret from SVC_WEBHOOK_SECRET; --json', async () => {
    const ok = await svc(['webhooks', 'verify', '--header', header, '--json', ...at], {
      input: payload,
      env: { SVC_WEBHOOK_SECRET: 'whsec_cli_secret' },
    });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({
      valid: true,
      reason: 'valid',
      timestamp: NOW,
      matched: 1,
      age_seconds: 0,
      tolerance_seconds: 300,
    });
    const bad = await svc(['webhooks', 'verify', '--header', header, '--json', ...at], {
      input: `${payload} `,
      env: { SVC_WEBHOOK_SECRET: 'whsec_cli_secret' },
    });
    expect(bad.code).toBe(8);
    expect(JSON.parse(bad.stdout)).toEqual({ valid: false, reason: 'signature_mismatch', timestamp: NOW });
    expect(JSON.parse(bad.stderr).error).toMatchObject({ code: 'signature_mismatch', exit_code: 8 });
    const none = await svc(['webhooks', 'verify', '--header', header, '--json'], { input: payload });
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stdout)).toMatchObject({
      valid: false,
      reason: 'unreadable_input',
      timestamp: null,
    });
  });

  it('signs: the header verifies here and in Stripe, exactly over the given bytes', async () => {
    const r = await svc(['webhooks', 'sign', '--secret-file', secretFile, '--payload', body, ...at]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${header}\n`);
    expect(
      Stripe.webhooks.signature!.verifyHeader(
        payload,
        r.stdout.trim(),
        'whsec_cli_secret',
        300,
        undefined,
        NOW * 1000,
      ),
    ).toBe(true);
    const json = await svc(['webhooks', 'sign', '--json', ...at], {
      input: payload,
      env: { SVC_WEBHOOK_SECRET: 'whsec_cli_secret' },
    });
    expect(JSON.parse(json.stdout)).toEqual({ header, timestamp: NOW, signature: header.split('v1=')[1] });
    const warned = await svc([
      'webhooks',
      'sign',
      '--secret-file',
      join(dir, 'secret-sp'),
      '--payload',
      body,
      ...at,
    ]);
    expect(warned.stderr).toBe(
      `warning: --secret-file ${join(dir, 'secret-sp')} has whitespace around the secret (beyond one final newline); it is used exactly as given\n`,
    );
  });
});
