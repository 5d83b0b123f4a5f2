/**
 * Servers that page otherwise than with `next_cursor` (findings-attack18b #5: a page without the
 * key was taken as the last one: `users ls --all` printed 3 of 259, `svc export` 3 grants of 417,
 * exit 0): an offset (`has_more` + `next_offset`), the last item's id (`has_more` alone, as Stripe:
 * `starting_after`) and a `Link: rel="next"` header are followed to the end; a page that says there
 * is more and gives no way to it, or a link to another host, stops with one line, exit 1.
 * In-process, through a proxy that pages the sandbox's whole list three items at a time.
 */
import { describe, expect, it } from 'vitest';
import { answers, hostileServer } from '../helpers/hostile.js';
import { type Exchange, useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext({ users: 12 });
const proxy = useReshapingProxy(svc.sandbox);
const through = () => ({ env: { SVC_BASE_URL: proxy().url } });

const LISTS = /^\/v1\/(users|tenants|role-assignments)$/;
const PAGE = 3;
type Shape =
  | 'offset'
  | 'stripe'
  | 'link'
  | 'hal'
  | 'jsonapi'
  | 'pages'
  | 'link-elsewhere'
  | 'more-no-way'
  | 'ignores-starting-after';

/** A server of `shape` over the sandbox: each list asked whole upstream, served PAGE items at a time. */
function pageAs(shape: Shape) {
  // The limit asked is kept (at most PAGE), as a server does within its own maximum.
  proxy().rewrite((method, path) => {
    const url = new URL(path, 'http://x');
    if (method !== 'GET' || !LISTS.test(url.pathname)) return path;
    for (const name of ['cursor', 'offset', 'starting_after', 'page', 'limit']) url.searchParams.delete(name);
    url.searchParams.set('limit', '200');
    return `${url.pathname}${url.search}`;
  });
  proxy().reshape((x: Exchange) => {
    const url = new URL(x.path, 'http://x');
    if (x.method !== 'GET' || !LISTS.test(url.pathname) || x.status !== 200) return;
    const page = x.body as { items: Array<{ id?: string }>; next_cursor?: unknown } & Record<string, unknown>;
    const all = page.items;
    const size = Math.min(PAGE, Number(url.searchParams.get('limit') ?? PAGE));
    const after = url.searchParams.get('starting_after');
    let from = Number(url.searchParams.get('offset') ?? 0);
    const pageNo = Number(url.searchParams.get('page') ?? 1);
    if (shape === 'pages') from = (pageNo - 1) * size;
    if (after !== null && shape !== 'ignores-starting-after') from = all.findIndex((i) => i.id === after) + 1;
    page.items = all.slice(from, from + size);
    delete page.next_cursor;
    const more = from + size < all.length;
    if (shape === 'offset') Object.assign(page, { has_more: more, next_offset: from + size });
    if (shape === 'stripe' || shape === 'ignores-starting-after') page.has_more = more;
    if (more && shape === 'link') {
      url.searchParams.set('offset', String(from + size));
      url.searchParams.delete('page');
      x.headers.link = `<${proxy().url}${url.pathname}${url.search}>; rel="next", <${proxy().url}${url.pathname}>; rel="first"`;
    }
    // review18b R8: HAL's _links.next.href, JSON:API's links.next as {href}, numbered pages.
    const next = `${proxy().url}${url.pathname}?offset=${from + size}`;
    if (more && shape === 'hal') page._links = { self: { href: x.path }, next: { href: next } };
    if (more && shape === 'jsonapi') page.links = { next: { href: next } };
    if (shape === 'pages') Object.assign(page, { page: pageNo, per_page: size, total: all.length });
    if (more && shape === 'link-elsewhere') x.headers.link = '<http://127.0.0.2:9/v1/users?page=1>; rel=next';
    // The first page gives an offset; the second, empty, says there is more and not where.
    if (shape === 'more-no-way') {
      if (from > 0) page.items = [];
      Object.assign(page, { has_more: true }, from === 0 ? { next_offset: PAGE } : {});
    }
  });
}

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
    expect(Number(/(\d+) grant\(s\)/.exec(direct.stderr)?.[1])).toBeGreaterThan(PAGE);
    pageAs(shape);
    expect(timeless(await svc.run(['export', '--only', 'grants'], through()))).toEqual(timeless(direct));
  });

  it('pages by has_more alone over assignments, which have no id: svc export stops, exit 1', async () => {
    pageAs('stripe');
    const r = await svc.run(['export', '--only', 'grants'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      "error: the server's answer to GET /v1/role-assignments says there are more items (has_more: true) but gives no way to them (no next_cursor, next_offset, Link header or item id); svc stopped, so the listing is incomplete; the server's paging is not one svc understands: report it to its operator\n",
    ]);
  });

  it.each(['offset', 'link'] as const)(
    'by %s, a listing cut by --limit names a cursor that continues exactly there',
    async (shape) => {
      const all = (await svc.run(['users', 'ls', '--all'])).stdout.split('\n');
      pageAs(shape);
      const first = await svc.run(['users', 'ls', '--limit', '4'], through());
      expect(first.stdout.split('\n').slice(0, 4)).toEqual(all.slice(0, 4));
      // One shell word: a link's ? and & are quoted.
      const word = /--cursor (\S+)/.exec(first.stderr)?.[1];
      expect(word).toBe(
        shape === 'offset' ? 'svc-page:offset=4' : "'svc-page:link=/v1/users?limit=1&offset=4'",
      );
      const cursor = word!.replace(/^'(.*)'$/, '$1');
      const rest = await svc.run(['users', 'ls', '--cursor', cursor!, '--limit', '2'], through());
      expect(rest.stdout.split('\n').slice(0, 2)).toEqual(all.slice(4, 6));
    },
  );

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

  it('a next link to another host is not followed, exit 1', async () => {
    pageAs('link-elsewhere');
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: the server's answer to GET /v1/users names its next page at "http://127.0.0.2:9/v1/users?page=1", outside ${proxy().url}; svc sends its credential nowhere else, so the listing is incomplete; the server's paging is not one svc understands: report it to its operator\n`,
    );
  });

  it('a server that ignores starting_after (the first page again) is a loop, exit 1', async () => {
    pageAs('ignores-starting-after');
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: the server sent the cursor "svc-page:starting_after=usr_\w+" again after 2 pages \(a cursor loop\)/,
    );
  });
});
