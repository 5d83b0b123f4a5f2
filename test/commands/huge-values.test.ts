/**
 * env12 #5: a huge bad value was repeated whole in its one-line error (100 000 characters; a slow
 * stderr reader got it cut at 64 KiB, and the --json error no longer parsed), and a huge SVC_ORG or
 * SVC_TOKEN ended in HTTP 431 without naming where the header came from.
 */
import { describe, expect, it } from 'vitest';
import { quoted } from '../../src/output/format.js';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const BIG = 'a'.repeat(100_000);
const SHORT = `"${'a'.repeat(60)}…${'a'.repeat(40)}" (100000 characters)`;
const dirs = useTempDirs();

describe('quoted(): a value an error repeats', () => {
  it('is quoted whole up to 200 characters, past it its first 60 and last 40 and its length', () => {
    expect(quoted('abc')).toBe('"abc"');
    expect(quoted(' x ')).toBe('" x "');
    expect(quoted('a'.repeat(200))).toBe(JSON.stringify('a'.repeat(200)));
    const long = `${'s'.repeat(60)}${'m'.repeat(101)}${'e'.repeat(40)}`;
    expect(quoted(long)).toBe(`"${'s'.repeat(60)}…${'e'.repeat(40)}" (201 characters)`);
    expect(quoted(BIG)).toBe(SHORT);
    // Characters, not UTF-16 units: an emoji is never cut in half.
    expect(quoted('😀'.repeat(300))).toBe(`"${'😀'.repeat(60)}…${'😀'.repeat(40)}" (300 characters)`);
  });
});

describe('a bad base URL (review-d 4 and 5)', () => {
  it.each([
    // The mistake is at the end (the port): the whole value is shown.
    [
      'https://reconciliation-platform.example.com:44x',
      'SVC_BASE_URL must be an absolute http(s) URL, got "https://reconciliation-platform.example.com:44x"',
    ],
    // A user name and password are masked, whatever the scheme, parsed or not.
    [
      'ftp://admin:S3cretPassw0rd@h.example',
      'SVC_BASE_URL must be an absolute http(s) URL, got "ftp://[redacted]:[redacted]@h.example"',
    ],
    [
      'https://admin:S3cretPassw0rd@h.example:99x',
      'SVC_BASE_URL must be an absolute http(s) URL, got "https://[redacted]:[redacted]@h.example:99x"',
    ],
  ])('SVC_BASE_URL=%s', async (value, message) => {
    const r = await runInProcess(['me'], { ...dirs(), SVC_BASE_URL: value });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: ${message}; for example http://127.0.0.1:4010\n`);
  });

  it('a long one past 200 characters keeps its end, where a port or path mistake is', async () => {
    const value = `https://${'h'.repeat(200)}.example.com:44x`;
    const r = await runInProcess(['me'], { ...dirs(), SVC_BASE_URL: value });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`…${'h'.repeat(24)}.example.com:44x" (${value.length} characters)`);
  });
});

describe('a 100 000-character bad value', () => {
  it.each<[string, string[], Record<string, string>, string]>([
    [
      'SVC_TIMEOUT',
      [],
      { SVC_TIMEOUT: BIG },
      `SVC_TIMEOUT must be a number of seconds, more than 0 and at most 3600, got ${SHORT}`,
    ],
    [
      'SVC_MAX_RETRIES',
      [],
      { SVC_MAX_RETRIES: BIG },
      `SVC_MAX_RETRIES must be an integer from 0 to 20, got ${SHORT}`,
    ],
    [
      'SVC_DEBUG',
      [],
      { SVC_DEBUG: BIG },
      `SVC_DEBUG must be 1, true, yes or on (or 0, false, no, off), got ${SHORT}`,
    ],
    ['SVC_BASE_URL', [], { SVC_BASE_URL: BIG }, `SVC_BASE_URL must be an absolute http(s) URL, got ${SHORT}`],
    ['--limit', ['--limit', BIG], {}, `--limit must be an integer from 1 to 10000000, got ${SHORT}`],
  ])(
    '%s: the error quotes its start and length, and --json stays one short JSON object',
    async (_name, flags, env, message) => {
      const r = await runInProcess(['tenants', 'ls', ...flags, '--json'], { ...dirs(), ...env });
      expect(r.code).toBe(2);
      expect(r.stderr.length).toBeLessThan(1000);
      expect(JSON.parse(r.stderr).error.message).toBe(message);
    },
  );

  it('SVC_PROFILE: the profile name is quoted short too', async () => {
    const r = await runInProcess(['tenants', 'ls'], { ...dirs(), SVC_PROFILE: BIG });
    expect(r.stderr.length).toBeLessThan(1000);
    expect(r.stderr).toContain(`invalid profile name ${SHORT}`);
  });
});

describe('request headers too large (HTTP 431)', () => {
  const svc = useSandboxContext();
  it.each([
    [
      'SVC_ORG',
      { SVC_ORG: `org_${'x'.repeat(20_000)}` },
      'X-SVC-Org-Id',
      "the organisation (--org, SVC_ORG or the profile's org)",
    ],
    [
      'SVC_TOKEN',
      { SVC_TOKEN: 'x'.repeat(20_000) },
      'Authorization',
      "the credential (SVC_TOKEN or the profile's)",
    ],
  ])('a huge %s: the hint names the header and where it comes from', async (_name, env, header, source) => {
    const r = await svc.run(['roles', 'ls', '--json'], { env });
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stderr);
    expect(error.status).toBe(431);
    expect(error.hint).toMatch(
      new RegExp(
        `^the largest header svc sent is ${header} \\(19.5 KiB\\), from ${source.replace(/[()]/g, '\\$&')}`,
      ),
    );
  });

  it.each([
    ['Authorization', 'Authorization'],
    ['X-Tenant-Id', 'X-Tenant-Id'],
    ['X-Custom', 'x-custom'],
  ])(
    'a huge %s given with svc api -H is named as given with -H, not as the credential or tenant',
    async (name, shown) => {
      const r = await svc.run(['api', '-H', `${name}: ${'a'.repeat(20_000)}`, '/v1/me', '--json']);
      expect(r.code).toBe(1);
      const { error } = JSON.parse(r.stderr);
      expect(error.status).toBe(431);
      expect(error.hint).toBe(
        `the largest header svc sent is ${shown} (19.5 KiB), given with -H: shorten it`,
      );
    },
  );

  // contract12 #4: a 100 KB id in the path was blamed on the Authorization header ("shorten it").
  it.each([
    ['svc api', ['api', `/v1/roles/${'a'.repeat(20_000)}`]],
    ['roles holders', ['roles', 'holders', 'a'.repeat(20_000)]],
  ])('a path over 16 KiB (%s): the hint names the URL, not a header', async (_name, args) => {
    const r = await svc.run([...args, '--json']);
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stderr);
    expect(error.status).toBe(431);
    expect(error.hint).toMatch(
      /^the largest part of the request is its URL \(path and query: 19\.\d KiB, more than every header\): an id or a query value this long is not one the server knows; check what was passed$/,
    );
  });

  it('many ordinary -H headers: the hint says they add up, and blames no single header', async () => {
    const flags = Array.from({ length: 40 }, (_, i) => ['-H', `X-F${i + 1}: ${'b'.repeat(500)}`]).flat();
    const r = await svc.run(['api', ...flags, '/v1/me', '--json']);
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stderr);
    expect(error.status).toBe(431);
    expect(error.hint).toMatch(
      /^the headers are too large together, none alone: svc sent \d+ headers, \d+\.\d KiB in all, 40 of them \(\d+\.\d KiB\) given with -H: send fewer or shorter ones$/,
    );
  });
});

// contract12 #3: these quoted the whole value still (a 100 KB error; on a pipe cut at 64 KiB).
describe('a 100 000-character value on the paths that need the server', () => {
  const svc = useSandboxContext();
  it.each<[string, string[], Record<string, string>, number, string]>([
    [
      'SVC_TENANT',
      ['tenants', 'ls'],
      { SVC_TENANT: BIG },
      5,
      `no tenant ${SHORT} (from SVC_TENANT) among your tenants`,
    ],
    [
      '--tenant',
      ['tenants', 'ls', '--tenant', BIG],
      {},
      5,
      `no tenant ${SHORT} (from --tenant) among your tenants`,
    ],
    [
      'tenants api-keys create',
      ['tenants', 'api-keys', 'create', BIG],
      {},
      5,
      `no tenant ${SHORT} among your tenants`,
    ],
    ['export --tenant', ['export', '--tenant', BIG], {}, 2, `tenant ${SHORT} is not one of your tenants`],
    ['tenants ls --role', ['tenants', 'ls', '--role', BIG], {}, 2, `--role ${SHORT} is not a role name`],
    ['records get', ['records', 'get', BIG, 'x'], {}, 2, `invalid surface ${SHORT}: `],
  ])('%s: the error quotes its start and length', async (_name, args, env, code, start) => {
    const r = await svc.run([...args, '--json'], { env });
    expect(r.stderr.length).toBeLessThan(1000);
    const { error } = JSON.parse(r.stderr);
    expect([r.code, error.message.slice(0, start.length)]).toEqual([code, start]);
  });
});
