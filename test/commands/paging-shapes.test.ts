/**
 * Servers that page otherwise than with `next_cursor` (findings-attack18b #5: a page without the
 * key was taken as the last one: `users ls --all` printed 3 of 259, `svc export` 3 grants of 417,
 * exit 0): an offset (`has_more` + `next_offset`), the last item's id (`has_more` alone, as Stripe:
 * `starting_after`) and a `Link: rel="next"` header are followed to the end; a page that says there
 * is more and gives no way to it, or a link to another host, stops with one line, exit 1.
 * In-process, through a proxy that pages the sandbox's whole list three items at a time.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ndjson } from '../helpers/context.js';
import { answers, hostileServer } from '../helpers/hostile.js';
import { PAGE, type PagedShape, pageAs as pageAsOn } from '../helpers/paged-proxy.js';
import { type Exchange, useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

const svc = useSandboxContext({ users: 12 });
const proxy = useReshapingProxy(svc.sandbox);
const through = () => ({ env: { SVC_BASE_URL: proxy().url } });

const pageAs = (shape: PagedShape) => pageAsOn(proxy(), shape);

/** An export's output without its first line (the time it was made). */
const timeless = (r: { code: number; stdout: string; stderr: string }) => [
  r.code,
  r.stdout.replace(/^# svc export of .*\n/, ''),
  r.stderr,
];

describe('a server paging another way', () => {
  it.each(['offset', 'stripe', 'link', 'hal', 'jsonapi', 'pages'] as const)(
    'pages by %s: users ls --all and tenants ls --all read every item',
    async (shape) => {
      const direct = [await svc.run(['users', 'ls', '--all']), await svc.run(['tenants', 'ls', '--all'])];
      expect(direct[0]!.stdout.trim().split('\n').length).toBeGreaterThan(PAGE * 3);
      expect(direct[1]!.stdout.trim().split('\n').length).toBeGreaterThan(PAGE);
      pageAs(shape);
      const paged = [
        await svc.run(['users', 'ls', '--all'], through()),
        await svc.run(['tenants', 'ls', '--all'], through()),
      ];
      expect(paged.map(timeless)).toEqual(direct.map(timeless));
    },
  );

  it.each(['offset', 'link'] as const)('pages by %s: svc export reads every grant', async (shape) => {
    const direct = await svc.run(['export', '--only', 'grants']);
    expect(Number(/(\d+) grants\b/.exec(direct.stderr)?.[1])).toBeGreaterThan(PAGE);
    pageAs(shape);
    expect(timeless(await svc.run(['export', '--only', 'grants'], through()))).toEqual(timeless(direct));
  });

  it.each(['offset', 'link'] as const)(
    "pages by %s: a user's assignments are read to the end (roles assignments, revoke's choice, a dry run's check)",
    async (shape) => {
      // Ended grants pile up: tenant_viewer given and revoked four times, then given again.
      for (let i = 0; i < 5; i++) {
        const grant = await svc.run([
          'roles',
          'assign',
          'usr_analyst',
          'tenant_viewer',
          '--expires-in',
          '8h',
          '--justification',
          't',
        ]);
        expect(grant.code).toBe(0);
        if (i < 4)
          expect((await svc.run(['roles', 'revoke', 'usr_analyst', 'tenant_viewer', '--yes'])).code).toBe(0);
      }
      const direct = await svc.run(['--json', 'roles', 'assignments', 'usr_analyst', '--include-ended']);
      expect((JSON.parse(direct.stdout) as unknown[]).length).toBeGreaterThan(PAGE);
      pageAs(shape);
      expect(
        await svc.run(['--json', 'roles', 'assignments', 'usr_analyst', '--include-ended'], through()),
      ).toEqual(direct);
      // The held grant is on the last page: a revoke dry run from a file finds it held.
      const file = join(tempDir('svc-paged-grants-'), 'g.csv');
      writeFileSync(file, 'user,role\nusr_analyst,tenant_viewer\n');
      const dry = await svc.run(['--ndjson', 'roles', 'revoke', '--file', file, '--dry-run'], through());
      expect([dry.code, ndjson(dry.stdout).map((row) => row.plan)]).toEqual([0, ['revoke']]);
    },
  );

  it('pages by has_more alone over assignments, which have no id: svc export stops, exit 1', async () => {
    pageAs('stripe');
    const r = await svc.run(['export', '--only', 'grants'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      "error: the server's answer to GET /v1/role-assignments says there are more items (has_more: true) but gives no way to them (no next_cursor, next_offset, Link header or item id); svc stopped, so the listing is incomplete; the server's paging is not one svc understands: report it to its operator\n",
    ]);
  });

  it('a next_cursor that is not a string is refused, not taken as the last page', async () => {
    proxy().reshape((x: Exchange) => {
      if (x.method === 'GET' && x.path.startsWith('/v1/users')) {
        const page = x.body as { items: unknown[]; next_cursor?: unknown };
        page.items = page.items.slice(0, PAGE);
        page.next_cursor = 3;
      }
    });
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(
      /^error: the server's answer to GET \/v1\/users has "next_cursor" as an integer \(expected null or string\); svc believes none of it;/,
    );
  });

  it.each(['http://127.0.0.2:9/v1/users', '//127.0.0.2:9/v1/users'])(
    "a next_cursor shaped as svc's own link to %s is sent as an opaque cursor, never followed there",
    async (link) => {
      const elsewhere = await hostileServer(answers.json(200, { items: [], next_cursor: null }), {
        host: '127.0.0.2',
      });
      try {
        const target = link.replace('127.0.0.2:9', new URL(elsewhere.url).host);
        proxy().reshape((x: Exchange) => {
          if (x.method === 'GET' && x.path.startsWith('/v1/users') && !x.path.includes('cursor=')) {
            (x.body as { next_cursor?: unknown }).next_cursor = `svc-page:link=${target}`;
          }
        });
        const r = await svc.run(['users', 'ls', '--all'], through());
        expect(elsewhere.seen).toEqual([]);
        expect(r.code).not.toBe(0);
        expect(proxy().seen.at(-1)).toContain(`cursor=${encodeURIComponent(`svc-page:link=${target}`)}`);
      } finally {
        await elsewhere.close();
      }
    },
  );

  it('svc api --paginate follows the same shapes', async () => {
    const direct = await svc.run(['api', '/v1/users', '--paginate']);
    pageAs('stripe');
    const r = await svc.run(['api', '/v1/users', '--paginate'], through());
    expect([r.code, r.stdout]).toEqual([0, direct.stdout]);
    expect(proxy().seen.filter((s) => s.includes('starting_after=')).length).toBeGreaterThan(2);
  });

  it('a page that says there is more and gives no way to it stops the listing, exit 1', async () => {
    pageAs('more-no-way');
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error: the listing is incomplete: it stopped after 3 items, when the next page failed: the server's answer to GET /v1/users says there are more items (has_more: true) but gives no way to them (no next_cursor, next_offset, Link header or item id); svc stopped, so the listing is incomplete; the server's paging is not one svc understands: report it to its operator\n",
    );
  });

  // mutpag (session 29): a count svc cannot read was taken as absent, and the list ended after its
  // first page, exit 0. It is refused, naming the field and its value, as has_more is: on the
  // first page, so nothing is printed.
  it.each([
    ['next_offset', 'abc', '"abc"'],
    ['next_offset', '+2', '"+2"'],
    ['total', ' 5', '" 5"'],
  ])(
    'a %s of %j svc cannot read stops the listing, exit 1, never a short list',
    async (field, value, shown) => {
      proxy().reshape((x: Exchange) => {
        if (x.method === 'GET' && x.path.startsWith('/v1/users')) {
          const page = x.body as Record<string, unknown> & { items: unknown[] };
          page.items = page.items.slice(0, PAGE);
          delete page.next_cursor;
          page[field] = value;
        }
      });
      const r = await svc.run(['users', 'ls', '--all'], through());
      expect([r.code, r.stdout, r.stderr]).toEqual([
        1,
        '',
        `error: the server's answer to GET /v1/users says ${field}: ${shown}, which is not a count (a whole number of 0 or more, or its digits as text); svc stopped, so the listing is incomplete; the server's paging is not one svc understands: report it to its operator\n`,
      ]);
    },
  );

  it('a next link to another host is not followed, exit 1', async () => {
    pageAs('link-elsewhere');
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: the server's answer to GET /v1/users names its next page at "http://127.0.0.2:9/v1/users?page=1", outside ${proxy().url}; svc sends its credential nowhere else, so the listing is incomplete; the server's paging is not one svc understands: report it to its operator\n`,
    );
  });

  // The first page was printed twice before the cursor loop stopped the listing (brief paging22 3).
  it('a server that ignores starting_after (the first page again) stops before the repeat is printed, exit 1', async () => {
    const all = (await svc.run(['users', 'ls', '--all'])).stdout.split('\n');
    pageAs('ignores-starting-after');
    const r = await svc.run(['users', 'ls', '--all'], through());
    const [first, third] = [all[0]!.split(/\s/)[0], all[2]!.split(/\s/)[0]];
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      `${all.slice(0, PAGE).join('\n')}\n`,
      `error: the listing is incomplete: it stopped after 3 items, when the next page failed: the page after ${third} (starting_after) repeats the whole page before it (${first}): the server ignores starting_after, which names the place after that page, so the page after it would never be read; svc stopped, so the listing is incomplete; the server's paging is broken: report it to its operator\n`,
    ]);
  });
});
