// Over 300 lines: the model verb test, every output mode of one verb spelt out in full.
/**
 * `svc tenants ls`, in-process against a sandbox on an ephemeral port: the model for a verb test.
 *
 * How to write a verb test:
 * 1. `const svc = useSandboxContext()` at the top of the file (test/helpers/sandbox.ts): a
 *    sandbox, temporary config/state/cache directories, the admin's token in Acme Treasury,
 *    NO_COLOR, and the clock at FIXED_NOW so relative times are exact. A terminal's relative
 *    times count from the platform's clock once an answer says it is more than a minute off, so
 *    a test of them sets the sandbox's clock there too (`setSandboxClock(svc.sandbox(), FIXED_NOW)`).
 * 2. For output, make a Context per case and call the verb's run function with what its parse
 *    function makes of the flags: `const { ctx, stdout, stderr } = svc.context({ globals, tty,
 *    columns })`, then `await runX(ctx, parseX(flags))`. Assert the *whole* stdout and stderr,
 *    one `it.each` row per output mode: a terminal (`tty: { stdout: true }, columns`), a pipe
 *    (no tty), `--json` and `--ndjson` (`globals: { json: true }`).
 * 3. For parsing, exit codes and errors, run the whole command line: `await svc.run(argv)` gives
 *    `{ code, stdout, stderr }`. Only what needs a process (signals, closed pipes, the launcher,
 *    shells, tmux prompts, the browser) stays in test/e2e and spawns bin/svc.js.
 * Prompts: `svc.context({ tty: true, answers: [...] })` answers them in order; an unexpected
 * prompt fails the test.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseTenantsLs, runTenantsLs } from '../../../src/commands/tenants/ls.js';
import type { GlobalOptions } from '../../../src/context.js';
import { DEMO_ORG } from '../../../src/sandbox/seed.js';
import { FIXED_NOW } from '../../helpers/context.js';
import { call, requestCount, setSandboxClock, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
beforeAll(() => setSandboxClock(svc.sandbox(), FIXED_NOW));

const TENANTS = [
  [
    '8ab23c1d-a27b-565a-ad8f-983ecf5fe016',
    'acme-treasury',
    'Acme Treasury',
    'enterprise',
    'USD',
    'America/New_York',
    '2024-01-15T09:00:00Z',
  ],
  [
    '5c59a2be-2bbe-51f5-b7c7-86876c08b908',
    'acme-payments-eu',
    'Acme Payments EU',
    'pro',
    'EUR',
    'Europe/Berlin',
    '2024-02-20T10:30:00Z',
  ],
  [
    '279352e3-51f6-5b0c-9f13-4a5563f8a965',
    'acme-ledger-uk',
    'Acme Ledger UK',
    'free',
    'GBP',
    'Europe/London',
    '2024-03-05T08:15:00Z',
  ],
  [
    'ae4e8baa-d428-5958-ad5e-78c9ba79890d',
    'acme-apac',
    'Acme APAC',
    'pro',
    'JPY',
    'Asia/Tokyo',
    '2024-04-10T01:00:00Z',
  ],
  [
    'fbbe4d31-beac-5b48-a287-2d8bcd45003b',
    'acme-labs',
    'Acme Labs',
    'free',
    'USD',
    'America/Los_Angeles',
    '2024-05-01T16:45:00Z',
  ],
].map(([id, slug, display_name, subscription_tier, default_currency, time_zone, created_at]) => ({
  id,
  slug,
  display_name,
  default_currency,
  time_zone,
  role: 'tenant_admin',
  created_at,
  subscription_tier,
}));

const lines = (...rows: string[]) => `${rows.join('\n')}\n`;

const TABLE = lines(
  'ID                                    SLUG              NAME              TIER        ROLE          CURRENCY  TIME ZONE            CREATED',
  '8ab23c1d-a27b-565a-ad8f-983ecf5fe016  acme-treasury     Acme Treasury     enterprise  tenant_admin  USD       America/New_York     2 years ago',
  '5c59a2be-2bbe-51f5-b7c7-86876c08b908  acme-payments-eu  Acme Payments EU  pro         tenant_admin  EUR       Europe/Berlin        22 months ago',
  '279352e3-51f6-5b0c-9f13-4a5563f8a965  acme-ledger-uk    Acme Ledger UK    free        tenant_admin  GBP       Europe/London        22 months ago',
  'ae4e8baa-d428-5958-ad5e-78c9ba79890d  acme-apac         Acme APAC         pro         tenant_admin  JPY       Asia/Tokyo           21 months ago',
  'fbbe4d31-beac-5b48-a287-2d8bcd45003b  acme-labs         Acme Labs         free        tenant_admin  USD       America/Los_Angeles  20 months ago',
);

// At 80 columns the time zone and tier go, and ids are shortened (tenants are also known by slug).
// (Created 20 to 24 months before the clock: whole months, never rounded up to "2 years" — attack22
// F8 — which leaves no room for the currency at 80 columns.)
const NARROW_TABLE = lines(
  'ID       SLUG              NAME              ROLE          CREATED',
  '8ab23c…  acme-treasury     Acme Treasury     tenant_admin  2 years ago',
  '5c59a2…  acme-payments-eu  Acme Payments EU  tenant_admin  22 months ago',
  '279352…  acme-ledger-uk    Acme Ledger UK    tenant_admin  22 months ago',
  'ae4e8b…  acme-apac         Acme APAC         tenant_admin  21 months ago',
  'fbbe4d…  acme-labs         Acme Labs         tenant_admin  20 months ago',
);

const TSV = lines(
  ...TENANTS.map((t) =>
    [
      t.id,
      t.slug,
      t.display_name,
      t.subscription_tier,
      t.role,
      t.default_currency,
      t.time_zone,
      t.created_at,
    ].join('\t'),
  ),
);

const JSON_ARRAY = `[\n${TENANTS.map((t) => JSON.stringify(t)).join(',\n')}\n]\n`;
const NDJSON = lines(...TENANTS.map((t) => JSON.stringify(t)));

describe('svc tenants ls', () => {
  it.each<[string, Parameters<typeof svc.context>[0], string, string?]>([
    ['a table with headers and relative times on a terminal', { tty: { stdout: true }, columns: 160 }, TABLE],
    [
      'only the columns that fit a narrow terminal',
      { tty: { stdout: true }, columns: 80 },
      NARROW_TABLE,
      '(ids shortened to fit: --wide, a pipe or --json shows them whole)\n',
    ],
    ['every column with --wide', { tty: { stdout: true }, columns: 80, globals: { wide: true } }, TABLE],
    ['tab-separated rows with RFC 3339 times in a pipe', {}, TSV],
    ['one JSON array of the API objects with --json', { globals: { json: true } }, JSON_ARRAY],
    ['one API object per line with --ndjson', { globals: { ndjson: true } }, NDJSON],
    ['the same JSON on a terminal', { globals: { json: true }, tty: true }, JSON_ARRAY],
  ])('prints %s', async (_what, options, expected, note = '') => {
    const { ctx, stdout, stderr } = svc.context(options);
    await runTenantsLs(ctx, parseTenantsLs({}));
    expect(stdout()).toBe(expected);
    expect(stderr()).toBe(note);
  });

  it('colours the header on a terminal, unless NO_COLOR is set, and never in a pipe', async () => {
    const colourful = { NO_COLOR: undefined };
    const terminal = svc.context({ tty: { stdout: true }, columns: 160, env: colourful });
    await runTenantsLs(terminal.ctx, parseTenantsLs({}));
    const bold = (word: string) => `\u001b[1m${word}\u001b[22m`;
    expect(terminal.stdout().split('\n')[0]).toBe(
      `${bold('ID')}                                    ${bold('SLUG')}              ${bold('NAME')}              ${bold('TIER')}        ${bold('ROLE')}          ${bold('CURRENCY')}  ${bold('TIME ZONE')}            ${bold('CREATED')}`,
    );
    const pipe = svc.context({ env: colourful });
    await runTenantsLs(pipe.ctx, parseTenantsLs({}));
    expect(pipe.stdout()).toBe(TSV);
  });

  it.each<[string, Record<string, unknown>, GlobalOptions, string]>([
    ['--tier', { tier: 'pro' }, {}, lines(TSV.split('\n')[1]!, TSV.split('\n')[3]!)],
    ['--role with no match, in a pipe: nothing', { role: 'tenant_viewer' }, {}, ''],
  ])('filters with %s', async (_what, flags, globals, expected) => {
    const { ctx, stdout, stderr } = svc.context({ globals });
    await runTenantsLs(ctx, parseTenantsLs(flags));
    expect([stdout(), stderr()]).toEqual([expected, '']);
  });

  it.each([
    [
      'json',
      `[\n${TENANTS.slice(0, 2)
        .map((t) => JSON.stringify(t))
        .join(',\n')}\n]\n`,
    ],
    [
      'ndjson',
      `${TENANTS.slice(0, 2)
        .map((t) => JSON.stringify(t))
        .join('\n')}\n`,
    ],
  ] as const)(
    '--limit with --%s: the data on stdout, the cursor to continue with on stderr',
    async (mode, expected) => {
      const cursor = (
        await call(svc.sandbox(), 'GET', '/v1/tenants?limit=2', { token: svc.sandbox().adminToken })
      ).body.next_cursor as string;
      const { ctx, stdout, stderr } = svc.context({ globals: { [mode]: true } });
      await runTenantsLs(ctx, parseTenantsLs({ limit: '2' }));
      expect([stdout(), stderr()]).toEqual([
        expected,
        `2 shown; more with: svc tenants ls --${mode} --cursor ${cursor}  (or --all)\n`,
      ]);
    },
  );

  it('says "no tenants match" on a terminal when nothing does', async () => {
    const { ctx, stdout, stderr } = svc.context({ tty: { stdout: true } });
    await runTenantsLs(ctx, parseTenantsLs({ role: 'tenant_viewer' }));
    expect([stdout(), stderr()]).toEqual(['', 'no tenants match\n']);
  });

  it('shows one page and the cursor of the next, which continues where it stopped', async () => {
    const page = await call(svc.sandbox(), 'GET', '/v1/tenants?limit=2', {
      token: svc.sandbox().adminToken,
    });
    const cursor = page.body.next_cursor as string;
    const first = svc.context();
    await runTenantsLs(first.ctx, parseTenantsLs({ limit: '2' }));
    expect(first.stdout()).toBe(lines(...TSV.split('\n').slice(0, 2)));
    expect(first.stderr()).toBe(`2 shown; more with: svc tenants ls --cursor ${cursor}  (or --all)\n`);
    const next = svc.context();
    await runTenantsLs(next.ctx, parseTenantsLs({ limit: '2', cursor }));
    expect(next.stdout()).toBe(lines(...TSV.split('\n').slice(2, 4)));
  });

  it.each<[string[], number, string | RegExp]>([
    [['--limit', '0'], 2, 'error: --limit must be an integer from 1 to 10000000, got "0"\n'],
    [['--limit', '10000001'], 2, 'error: --limit must be an integer from 1 to 10000000, got "10000001"\n'],
    [['--limit', 'ten'], 2, 'error: --limit must be an integer from 1 to 10000000, got "ten"\n'],
    [['--bogus'], 2, "error: unknown option '--bogus'; see `svc tenants ls --help`\n"],
    [
      ['--json', '--ndjson'],
      2,
      '{"error":{"code":"usage","message":"--json and --ndjson cannot be combined; pick one","exit_code":2}}\n',
    ],
    [
      ['--tier', 'gold'],
      2,
      "error: option '--tier <tier>' argument 'gold' is invalid. Allowed choices are free, pro, enterprise; see `svc tenants ls --help`\n",
    ],
    [
      ['--limit', '0', '--json'],
      2,
      '{"error":{"code":"usage","message":"--limit must be an integer from 1 to 10000000, got \\"0\\"","exit_code":2}}\n',
    ],
    [
      // --ndjson is a machine's stream too: its errors are the same one JSON object (README, configuration).
      ['--limit', '0', '--ndjson'],
      2,
      '{"error":{"code":"usage","message":"--limit must be an integer from 1 to 10000000, got \\"0\\"","exit_code":2}}\n',
    ],
    [
      ['--tenant', '00000000-0000-0000-0000-000000000000', '--ndjson'],
      4,
      /^\{"error":\{"code":"tenant_forbidden",.*"exit_code":4,.*"status":403,"request_id":"req_[0-9a-f]+"\}\}\n$/,
    ],
    [
      ['--tenant', '00000000-0000-0000-0000-000000000000'],
      4,
      /^error: tenant 00000000-0000-0000-0000-000000000000 is not one of your credential's tenants \(HTTP 403, tenant_forbidden, request req_[0-9a-f]+\); use a tenant your credential has \(`svc me` lists them, run without this --tenant or SVC_TENANT\), or a credential that has this tenant\n$/,
    ],
    [
      ['--cursor', 'nope'],
      2,
      /^error: the cursor is not one this API issued \[cursor: is malformed\] \(HTTP 400, invalid_cursor, request req_[0-9a-f]+\)\n$/,
    ],
  ])('svc tenants ls %j exits %i', async (flags, code, stderr) => {
    const result = await svc.run(['tenants', 'ls', ...flags]);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    if (typeof stderr === 'string') expect(result.stderr).toBe(stderr);
    else expect(result.stderr).toMatch(stderr);
  });

  it('sends no request when a flag is wrong, and names the verb a typo meant', async () => {
    const requests = () => requestCount(svc.sandbox());
    const before = await requests();
    for (const flags of [['--limit', '0'], ['--tier', 'gold'], ['--bogus'], ['--json', '--ndjson']]) {
      expect((await svc.run(['tenants', 'ls', ...flags])).code).toBe(2);
    }
    expect(await svc.run(['tenant', 'lss'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: unknown command 'lss' (Did you mean ls?); see `svc tenants --help`\n",
    });
    expect(await requests()).toBe(before);
  });

  it('exits 3 with the fix when there is no credential', async () => {
    expect(await svc.run(['tenants', 'ls'], { env: { SVC_TOKEN: undefined } })).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'error: not logged in: profile "default" has no credential; run `svc login` (or `svc login --with-token`), or set SVC_TOKEN\n',
    });
  });
});

describe('svc tenants ls --all, over 1,005 tenants of an organisation', () => {
  const big = useSandboxContext({ tenants: 1000 });
  const tenantGets = async () =>
    ((await call(big.sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>)[
      'GET /v1/tenants 200'
    ] ?? 0;

  it.each<[string, GlobalOptions, (out: string) => string[]]>([
    [
      '--ndjson',
      { ndjson: true, org: DEMO_ORG },
      (out) =>
        out
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l).id),
    ],
    [
      'a pipe',
      { org: DEMO_ORG },
      (out) =>
        out
          .trimEnd()
          .split('\n')
          .map((l) => l.split('\t')[0]!),
    ],
  ])('streams every page, 200 at a time, as %s', async (_mode, globals, ids) => {
    const before = await tenantGets();
    const { ctx, stdout, stderr } = big.context({ globals });
    await runTenantsLs(ctx, parseTenantsLs({ all: true }));
    const seen = ids(stdout());
    expect(seen).toHaveLength(1005);
    expect(new Set(seen).size).toBe(1005);
    expect(seen.slice(0, 5)).toEqual(TENANTS.map((t) => t.id));
    expect((await tenantGets()) - before).toBe(6);
    expect(stderr()).toBe('');
  });

  it.each<[Record<string, unknown>, number, number]>([
    [{ limit: '250' }, 250, 2],
    [{ all: true, limit: '450' }, 450, 3],
    [{}, 50, 1],
  ])(
    '%j: --limit is a total, whatever the page size (%i tenants in %i requests)',
    async (flags, count, requests) => {
      const before = await tenantGets();
      const { ctx, stdout } = big.context({ globals: { ndjson: true, org: DEMO_ORG } });
      await runTenantsLs(ctx, parseTenantsLs(flags));
      expect(stdout().trimEnd().split('\n')).toHaveLength(count);
      expect((await tenantGets()) - before).toBe(requests);
    },
  );
});
