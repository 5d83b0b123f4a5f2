/**
 * Attack class "signature verification fuzzed": `svc webhooks verify` against random and
 * malformed headers, bodies and secrets (fast-check), each ending with the exit code the
 * documented rules (written again here, independently of src/webhooks/signature.ts) give; and
 * agreement with Stripe's signer and verifier both ways. In-process. `npm test` tries the fast
 * counts, `npm run attack` the full ones (docs/RELIABILITY.md). The exact output of each
 * outcome: test/commands/webhooks/verify.test.ts. (Was test/webhooks/verify-cli.test.ts.)
 */
import { createHmac } from 'node:crypto';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { SECRET_ENV } from '../../src/commands/webhooks/shared.js';
import { secretFromText } from '../../src/system/secret-text.js';
import { fakeIO, testDeps } from '../helpers/context.js';
import { anyCodePoint, cases } from './lib.js';

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
const VERIFY_RUNS = cases(2_500, 10_000);
const STRIPE_RUNS = cases(500, 2_000);
const hex64 = fc.stringMatching(/^[0-9a-fA-F]{64}$/);
const sign = (secret: string, t: number, body: Buffer) =>
  createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), body]))
    .digest('hex');

/** A header for a secret and a body: valid, stale, tampered, structurally broken, or random text. */
type Header = (secret: string, body: Buffer) => string;

/**
 * Headers of every kind, as makers of a header for the case's secret and body: built once (a
 * `chain` on the secret and body built these twelve arbitraries again for every case).
 */
const headerArb: fc.Arbitrary<Header> = (() => {
  const t = fc.integer({ min: NOW - 1000, max: NOW + 1000 });
  const fixed =
    (text: string): Header =>
    () =>
      text;
  return fc.oneof(
    t.map(
      (ts): Header =>
        (secret, body) =>
          `t=${ts},v1=${sign(secret, ts, body)}`,
    ),
    fc.tuple(t, hex64).map(
      ([ts, other]): Header =>
        (secret, body) =>
          `t=${ts},v1=${other},v1=${sign(secret, ts, body)}`,
    ),
    fc.tuple(t, hex64).map(([ts, other]) => fixed(`t=${ts},v1=${other}`)),
    t.map(
      (ts): Header =>
        (secret, body) =>
          `t=${ts},v1=${sign(`${secret}x`, ts, body)}`,
    ),
    fc.tuple(t, fc.string()).map(([ts, junk]) => fixed(`t=${ts},v1=${junk}`)),
    fc.tuple(fc.string(), hex64).map(([junk, sig]) => fixed(`t=${junk},v1=${sig}`)),
    t.map(
      (ts): Header =>
        (secret, body) =>
          `v1=${sign(secret, ts, body)},t=${ts}`,
    ),
    t.map(
      (ts): Header =>
        (secret, body) =>
          `t=${ts},t=${ts},v1=${sign(secret, ts, body)}`,
    ),
    t.map(
      (ts): Header =>
        (secret, body) =>
          ` X-SVC-Signature: t=${ts},v0=abc, v1=${sign(secret, ts, body)} `,
    ),
    fc
      .array(fc.constantFrom('t=', 'v1=', ',', '=', ' ', '1', 'a', 'f', '0', 'v0=', '\t', 'é'), {
        maxLength: 30,
      })
      .map((p) => fixed(p.join(''))),
    fc.string({ maxLength: 120 }).map(fixed),
    fc.string({ unit: anyCodePoint, maxLength: 80 }).map(fixed),
  );
})();

describe('svc webhooks verify: property tests', () => {
  it(`ends every random or malformed header, body and secret with its documented exit code (${VERIFY_RUNS} cases)`, async () => {
    const tally: Record<number, number> = { 0: 0, 2: 0, 8: 0, 9: 0 };
    const cases = fc.tuple(
      fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\u0000')),
      fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      headerArb,
    );
    await fc.assert(
      fc.asyncProperty(cases, fc.boolean(), async ([secret, body, makeHeader], json) => {
        const header = makeHeader(secret, body);
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
        expect(r.code, `header ${JSON.stringify(header)}`).toBe(expected);
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
      { numRuns: VERIFY_RUNS },
    );
    // Every outcome was exercised many times (over 3% of the cases each).
    for (const code of [0, 2, 8, 9]) expect(tally[code], `exit ${code}`).toBeGreaterThan(VERIFY_RUNS * 0.03);
  }, 300_000);

  it(`verifies what Stripe signs and what \`svc webhooks sign\` signs, whatever the bytes (${STRIPE_RUNS} cases)`, async () => {
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
      { numRuns: STRIPE_RUNS },
    );
  }, 120_000);
});
