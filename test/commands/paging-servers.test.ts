/**
 * Listings against servers whose paging misbehaves (findings s9 servers 2 and 5): a cursor that
 * comes back (c1 → c1, or c1 → c2 → c1) stops every listing and `svc api --paginate` with one
 * line naming the loop, exit 1, in every output mode; a listing cut by a failure says it is
 * incomplete and after how many items, and its `--json` stays an unterminated array (a partial
 * list must not parse as a whole one), while `--ndjson` keeps every item received.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ndjson, runInProcess, useTempDirs } from '../helpers/context.js';

const TENANT = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const tenant = (i: number) => ({
  id: `aaaaaaaa-bbbb-4ccc-8ddd-${String(i).padStart(12, '0')}`,
  slug: `s${i}`,
  display_name: `T${i}`,
  default_currency: 'EUR',
  time_zone: 'UTC',
  role: 'tenant_admin',
  created_at: '2026-01-01T00:00:00Z',
  subscription_tier: 'pro',
});

type Mode = 'repeat' | 'cycle' | 'failp2' | 'ignores';
let server: Server;
let base: string;
const requests: Record<string, number> = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const [, mode] = url.pathname.split('/') as [string, Mode];
    requests[mode] = (requests[mode] ?? 0) + 1;
    const cursor = url.searchParams.get('cursor');
    const page = cursor ? Number(cursor.slice(1)) : 0;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (mode === 'failp2' && page > 0) {
      return json(503, { error: { code: 'unavailable', message: 'down', request_id: 'req_1' } });
    }
    // `ignores`: a server that ignores the cursor, answering the first page (and its cursor) to every one.
    if (mode === 'ignores') return json(200, { items: [tenant(0), tenant(1)], next_cursor: 'c1' });
    const next = { repeat: 'c1', cycle: page === 2 ? 'c1' : `c${page + 1}`, failp2: 'c1' }[mode];
    json(200, { items: [tenant(page)], next_cursor: next });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const dirs = useTempDirs();
function svc(mode: Mode, argv: string[]) {
  const env = {
    ...dirs(),
    SVC_BASE_URL: `${base}/${mode}`,
    SVC_TOKEN: 'tok_paging_test_123456',
    SVC_TENANT: TENANT,
    SVC_MAX_RETRIES: '0',
  };
  return runInProcess(argv, env);
}
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1)!;

describe('a cursor the server sends again', () => {
  it.each([
    ['a table', []],
    ['--json', ['--json']],
    ['--ndjson', ['--ndjson']],
  ])('stops tenants ls --all (c1 → c1) with one line naming the loop, in %s', async (_mode, flags) => {
    const before = requests.repeat ?? 0;
    const r = await svc('repeat', ['tenants', 'ls', '--all', ...flags]);
    expect(r.code).toBe(1);
    // Page 1 (no cursor) → c1, page 2 (c1) → c1 again: two requests, not thousands.
    expect((requests.repeat ?? 0) - before).toBe(2);
    const message =
      'the server sent the cursor "c1" again after 2 pages (a cursor loop); svc stopped rather than read the same pages forever, so the listing is incomplete';
    if (flags.length === 0) {
      expect(r.stderr).toBe(`error: ${message}; the server's paging is broken: report it to its operator\n`);
    } else {
      expect(JSON.parse(lastLine(r.stderr)).error).toMatchObject({
        code: 'cursor_loop',
        message,
        exit_code: 1,
      });
    }
  });

  it('stops tenants ls --all on a cycle c1 → c2 → c1', async () => {
    const r = await svc('cycle', ['tenants', 'ls', '--all', '--ndjson']);
    expect(r.code).toBe(1);
    expect(ndjson(r.stdout).map((t) => t.slug)).toEqual(['s0', 's1', 's2']);
    expect(JSON.parse(lastLine(r.stderr)).error.message).toMatch(
      /^the server sent the cursor "c1" again after 3 pages \(a cursor loop\)/,
    );
  });

  it('stops svc api --paginate on a cycle c1 → c2 → c1', async () => {
    const before = requests.cycle ?? 0;
    const r = await svc('cycle', ['api', 'GET', '/v1/tenants', '--paginate', '--ndjson']);
    expect(r.code).toBe(1);
    expect((requests.cycle ?? 0) - before).toBe(3);
    expect(ndjson(r.stdout).map((t) => t.slug)).toEqual(['s0', 's1', 's2']);
    expect(JSON.parse(lastLine(r.stderr)).error).toMatchObject({
      code: 'cursor_loop',
      message: expect.stringMatching(/^the server sent the cursor "c1" again after 3 pages /),
    });
  });
});

describe('a listing that starts from a cursor the server sends back', () => {
  const once = 'the server sent the cursor "c1" again after 1 page (a cursor loop)';

  it('tenants ls --cursor c1 (c1 → c1): one request, "after 1 page"', async () => {
    const before = requests.repeat ?? 0;
    const r = await svc('repeat', ['tenants', 'ls', '--cursor', 'c1', '--all', '--ndjson']);
    expect(r.code).toBe(1);
    expect((requests.repeat ?? 0) - before).toBe(1);
    expect(ndjson(r.stdout).map((t) => t.slug)).toEqual(['s1']);
    expect(JSON.parse(lastLine(r.stderr)).error.message).toContain(once);
  });

  it.each([
    ['in the path', ['api', '/v1/tenants?cursor=c1', '--paginate', '--ndjson']],
    ['as a field', ['api', '/v1/tenants', '-f', 'cursor=c1', '--paginate', '--ndjson']],
  ])('svc api --paginate with the cursor %s starts the trail: page c1 is read once', async (_how, argv) => {
    const before = requests.repeat ?? 0;
    const r = await svc('repeat', argv);
    expect(r.code).toBe(1);
    expect((requests.repeat ?? 0) - before).toBe(1);
    expect(ndjson(r.stdout).map((t) => t.slug)).toEqual(['s1']);
    expect(JSON.parse(lastLine(r.stderr)).error).toMatchObject({
      code: 'cursor_loop',
      message: expect.stringContaining(once),
    });
  });
});

describe('a listing cut by a failure', () => {
  const cut = 'the listing is incomplete: it stopped after 1 item, when the next page failed: down';

  it.each([
    ['tenants ls --all', ['tenants', 'ls', '--all']],
    ['api --paginate', ['api', 'GET', '/v1/tenants', '--paginate']],
  ])('%s --json: says so, and stdout stays an unterminated array', async (_what, argv) => {
    const r = await svc('failp2', [...argv, '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout.startsWith('[\n{')).toBe(true);
    expect(() => JSON.parse(r.stdout)).toThrow();
    expect(JSON.parse(lastLine(r.stderr)).error).toMatchObject({ message: cut, status: 503, exit_code: 1 });
  });

  it('--ndjson keeps every item received; a table says so too', async () => {
    const lines = await svc('failp2', ['tenants', 'ls', '--all', '--ndjson']);
    expect(lines.code).toBe(1);
    expect(ndjson(lines.stdout).map((t) => t.slug)).toEqual(['s0']);
    const table = await svc('failp2', ['tenants', 'ls', '--all']);
    expect(table.code).toBe(1);
    expect(table.stderr).toBe(`error: ${cut} (HTTP 503, unavailable, request req_1)\n`);
  });

  it('a failure of the first page is said as it is', async () => {
    const r = await svc('failp2', ['tenants', 'ls', '--all', '--cursor', 'c1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: down (HTTP 503, unavailable, request req_1)\n');
  });
});

/**
 * A server that ignores its own cursor (the first page again, the same cursor with it): the first
 * page was printed twice before the cursor loop stopped the listing. A cursor names the place
 * after the page before, so a page repeating that whole page is the server's fault: the listing
 * stops before the repeat is printed.
 */
describe('a server that ignores the cursor asked for', () => {
  const message = `the page at the server's cursor "c1" repeats the whole page before it (${tenant(0).id}): the server ignores the cursor asked for, which names the place after that page, so the page after it would never be read; svc stopped, so the listing is incomplete`;
  const cut = `the listing is incomplete: it stopped after 2 items, when the next page failed: ${message}`;

  it.each([
    ['tenants ls --all', ['tenants', 'ls', '--all', '--ndjson']],
    ['api --paginate', ['api', 'GET', '/v1/tenants', '--paginate', '--ndjson']],
  ])('%s prints the first page once and stops with one line, exit 1', async (_what, argv) => {
    const r = await svc('ignores', argv);
    expect([r.code, ndjson(r.stdout).map((t) => t.slug), ndjson(r.stderr)]).toEqual([
      1,
      ['s0', 's1'],
      [
        {
          error: {
            code: 'cursor_loop',
            message: cut,
            exit_code: 1,
            hint: "the server's paging is broken: report it to its operator",
          },
        },
      ],
    ]);
  });
});
