/**
 * Numbered pages and next links as other servers write them (review19 F1, F5, F8), in-process
 * through a proxy that pages the sandbox's whole list three items at a time
 * (test/helpers/paged-proxy.ts):
 * - F1: page, per_page and total as text ("39": proto3's int64), total_pages in place of total,
 *   or no count at all are followed to the end; a total and nothing else, or a page number
 *   without its page size, stop with one line, exit 1 (they were the last page: 3 items, exit 0);
 * - F5: a numbered page is asked in the size it was counted in, and a link as the server wrote
 *   it (svc's own smaller `limit` put over them gave repeated rows, and a continuation cursor
 *   resumed in another size skipped rows): svc prints what --limit allows, and its cursor
 *   continues exactly after the last item printed;
 * - review19b F10: a numbered page answered in another size than asked (page 2 of 2 after page 1
 *   of 3) stops with one line, exit 1: its items are not the ones after (one was printed twice);
 * - F8: a relative next link (`?offset=3`, `users?offset=3`) is read against the page it came on,
 *   not the base URL.
 */
import { describe, expect, it } from 'vitest';
import { type PagedShape, pageAs } from '../helpers/paged-proxy.js';
import { useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext({ users: 12 });
const proxy = useReshapingProxy(svc.sandbox);
const through = () => ({ env: { SVC_BASE_URL: proxy().url } });

/** The lines of users ls --all straight from the sandbox (one user a line). */
async function everyUser(): Promise<string[]> {
  const direct = await svc.run(['users', 'ls', '--all']);
  const lines = direct.stdout.trimEnd().split('\n');
  expect(lines.length).toBeGreaterThan(9);
  return lines;
}

const text = (lines: string[]) => `${lines.join('\n')}\n`;
const exportOf = (r: { code: number; stdout: string; stderr: string }) => [
  r.code,
  r.stdout.replace(/^# svc export of .*\n/, ''),
  r.stderr,
];
const notUnderstood = "; the server's paging is not one svc understands: report it to its operator";

describe('numbered pages and links as other servers write them', () => {
  it.each(['pages-text', 'total-pages', 'pages-no-count', 'relative-query', 'relative-path'] as const)(
    'pages by %s: users ls --all and tenants ls --all read every item',
    async (shape) => {
      const users = await everyUser();
      const tenants = await svc.run(['tenants', 'ls', '--all']);
      pageAs(proxy(), shape);
      const paged = [
        await svc.run(['users', 'ls', '--all'], through()),
        await svc.run(['tenants', 'ls', '--all'], through()),
      ];
      expect(paged.map((r) => [r.code, r.stdout, r.stderr])).toEqual([
        [0, text(users), ''],
        [0, tenants.stdout, ''],
      ]);
    },
  );

  it.each(['pages-text', 'total-pages'] as const)(
    'pages by %s: svc export reads every grant',
    async (shape) => {
      const direct = await svc.run(['export', '--only', 'grants']);
      pageAs(proxy(), shape);
      expect(exportOf(await svc.run(['export', '--only', 'grants'], through()))).toEqual(exportOf(direct));
    },
  );

  it.each([
    [
      'total-only',
      "the server's answer to GET /v1/users counts 21 items (total) but gives 3 and no way to the others (no next_cursor, next_offset, page number, Link header or item id); svc stopped, so the listing is incomplete",
    ],
    [
      'pages-no-size',
      "the server's answer to GET /v1/users is page 1 of a numbered list but does not say its page size (per_page), so not where page 2 starts; svc stopped, so the listing is incomplete",
    ],
  ] as const)('pages by %s: users ls and svc export stop with one line, exit 1', async (shape, message) => {
    expect(await everyUser()).toHaveLength(21);
    pageAs(proxy(), shape);
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([1, '', `error: ${message}${notUnderstood}\n`]);
    const grants = await svc.run(['export', '--only', 'grants'], through());
    expect([grants.code, grants.stdout]).toEqual([1, '']);
    expect(grants.stderr).toMatch(
      /^error: the server's answer to GET \/v1\/role-assignments (counts|is page 1)/,
    );
  });

  const firstTwo = '#skip=0&printed=usr_admin,usr_ai_prompter';
  const cursors: Record<PagedShape, string> = {
    // A page svc asks by position, reached exactly at --limit: the items printed last named, for a
    // list gaining items ahead of it before the next command starts that page with them.
    offset: "'svc-page:offset=4#skip=0&printed=usr_admin,usr_ai_prompter,usr_analyst,usr_auditor'",
    // The link as the server wrote it (its limit=4 kept), of which one item was printed.
    link: "'svc-page:link=/v1/users?limit=4&offset=3#skip=1&printed=usr_auditor'",
    pages: "'svc-page:page=2&per_page=3#skip=1&printed=usr_auditor'",
    'hal-pages': "'svc-page:link=/v1/users?page=2&limit=3#skip=1&printed=usr_auditor'",
  } as Record<PagedShape, string>;
  it.each(['offset', 'link', 'pages', 'hal-pages'] as const)(
    'by %s, --limit 4 prints the first 4 once and names a cursor that continues exactly there',
    async (shape) => {
      const all = await everyUser();
      pageAs(proxy(), shape);
      const first = await svc.run(['users', 'ls', '--limit', '4'], through());
      expect([first.code, first.stdout]).toEqual([0, text(all.slice(0, 4))]);
      // One shell word: a link's ? and & are quoted.
      const word = /--cursor (\S+)/.exec(first.stderr)?.[1];
      expect(word).toBe(cursors[shape]);
      const cursor = word!.replace(/^'(.*)'$/, '$1');
      const rest = await svc.run(['users', 'ls', '--cursor', cursor, '--limit', '2'], through());
      expect([rest.code, rest.stdout]).toEqual([0, text(all.slice(4, 6))]);
    },
  );

  it.each(['pages', 'hal-pages'] as const)(
    'by %s, the cursor after a page of 2 continues in pages of 2 under --all: no item skipped',
    async (shape) => {
      const all = await everyUser();
      pageAs(proxy(), shape);
      const first = await svc.run(['users', 'ls', '--limit', '2'], through());
      expect(first.stdout).toBe(text(all.slice(0, 2)));
      const cursor = /--cursor '?([^' ]+)/.exec(first.stderr)?.[1];
      expect(cursor).toBe(
        `${shape === 'pages' ? 'svc-page:page=2&per_page=2' : 'svc-page:link=/v1/users?page=2&limit=2'}${firstTwo}`,
      );
      const rest = await svc.run(['users', 'ls', '--cursor', cursor!, '--all'], through());
      expect([rest.code, rest.stdout, rest.stderr]).toEqual([0, text(all.slice(2)), '']);
    },
  );

  it('svc api --paginate from a cursor within a page skips the items of it printed before', async () => {
    const direct = await svc.run(['api', '/v1/users', '--paginate', '--ndjson']);
    const all = direct.stdout.trimEnd().split('\n');
    pageAs(proxy(), 'pages');
    const cursor = 'cursor=svc-page:page=2&per_page=3#skip=1';
    const r = await svc.run(['api', '/v1/users', '--paginate', '--ndjson', '-f', cursor], through());
    expect([r.code, r.stdout]).toEqual([0, text(all.slice(4))]);
    expect(proxy().seen[0]).toBe('GET /v1/users?page=2&limit=3');
  });

  // review19b F10: page 2 of 2 after page 1 of 3 is items 2–3, item 2 page 1's: printed twice, exit 0.
  it('a page answered in another size than asked stops users ls --all and svc api --paginate with one line, exit 1, nothing twice', async () => {
    const all = await everyUser();
    pageAs(proxy(), 'pages-shrink');
    const moved =
      "the listing is incomplete: it stopped after 3 items, when the next page failed: the server's answer to GET /v1/users is page 2 of 2 items a page, but svc asked for page 2 of 3 (the size the pages before it were counted in): its items are not the ones after those, so rows would be printed twice or left out; svc stopped, so the listing is incomplete; the server changed its page size while svc read the list: run the command again from the start (without --cursor), or report it to the server's operator";
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([1, text(all.slice(0, 3)), `error: ${moved}\n`]);
    const api = await svc.run(['api', '/v1/users', '--paginate', '--ndjson'], through());
    const [message, hint] = moved.split('; the server changed');
    expect([api.code, api.stdout.trimEnd().split('\n').length, JSON.parse(api.stderr)]).toEqual([
      1,
      3,
      { error: { code: 'paging_moved', message, exit_code: 1, hint: `the server changed${hint}` } },
    ]);
  });

  // review19d F8: per_page as the page's own count, the last page short (1 of 21 in pages of 2):
  // it was "page 11 of 1 items a page, but svc asked for page 11 of 2", exit 1, the last item left out.
  it('pages whose per_page is their count: the short last page ends users ls --all and svc api --paginate, every item once, exit 0', async () => {
    const all = await everyUser();
    const direct = await svc.run(['api', '/v1/users', '--paginate', '--ndjson']);
    pageAs(proxy(), 'pages-count');
    const first = await svc.run(['users', 'ls', '--limit', '2'], through());
    const cursor = /--cursor '?([^' ]+)/.exec(first.stderr)?.[1];
    expect(cursor).toBe(`svc-page:page=2&per_page=2${firstTwo}`);
    const rest = await svc.run(['users', 'ls', '--cursor', cursor!, '--all'], through());
    expect([rest.code, rest.stdout, rest.stderr]).toEqual([0, text(all.slice(2)), '']);
    expect(proxy().seen.at(-1)).toBe('GET /v1/users?limit=2&page=11');
    const api = await svc.run(['api', '/v1/users', '--paginate', '--ndjson', '-f', 'limit=2'], through());
    expect([api.code, api.stdout, api.stderr]).toEqual([0, direct.stdout, '']);
  });

  it('by pages, --all --limit 7 prints 7 distinct items (the last page asked whole, then cut)', async () => {
    const all = await everyUser();
    pageAs(proxy(), 'pages');
    const r = await svc.run(['users', 'ls', '--all', '--limit', '7'], through());
    expect([r.code, r.stdout]).toEqual([0, text(all.slice(0, 7))]);
    expect(proxy().seen.filter((s) => s.startsWith('GET /v1/users'))).toEqual([
      'GET /v1/users?limit=7',
      'GET /v1/users?limit=3&page=2',
      'GET /v1/users?limit=3&page=3',
    ]);
  });

  // Session 20 (a list is never silently partial): page 3 answered empty in a size of 50 after
  // pages of 3, the total still 21, ended the listing: 6 of 21, exit 0.
  it('an empty page answered in another size stops users ls --all with one line, exit 1, after the items printed', async () => {
    const all = await everyUser();
    pageAs(proxy(), 'pages-empty-moved');
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      text(all.slice(0, 6)),
      "error: the listing is incomplete: it stopped after 6 items, when the next page failed: the server's answer to GET /v1/users is page 3 of 50 items a page, but svc asked for page 3 of 3 (the size the pages before it were counted in): its items are not the ones after those, so rows would be printed twice or left out; svc stopped, so the listing is incomplete; the server changed its page size while svc read the list: run the command again from the start (without --cursor), or report it to the server's operator\n",
    ]);
  });

  // Session 20: a 0-based server whose per_page is its page's count: its short last page was read
  // as 1-based ("page 10 of 1 items a page, but svc asked for page 10 of 2"), exit 1, 20 of 21.
  it('0-based pages whose per_page is their count: the short last page ends the list, every item once, exit 0', async () => {
    const all = await everyUser();
    const direct = await svc.run(['api', '/v1/users', '--paginate', '--ndjson']);
    pageAs(proxy(), 'pages-zero-count');
    const api = await svc.run(['api', '/v1/users', '--paginate', '--ndjson', '-f', 'limit=2'], through());
    expect([api.code, api.stdout, api.stderr]).toEqual([0, direct.stdout, '']);
    expect(proxy().seen.at(-1)).toBe('GET /v1/users?limit=2&page=10');
    const first = await svc.run(['users', 'ls', '--limit', '2'], through());
    const cursor = /--cursor '?([^' ]+)/.exec(first.stderr)?.[1];
    expect([first.stdout, cursor]).toEqual([
      text(all.slice(0, 2)),
      `svc-page:page=1&per_page=2&base=0${firstTwo}`,
    ]);
    const rest = await svc.run(['users', 'ls', '--cursor', cursor!, '--all'], through());
    expect([rest.code, rest.stdout, rest.stderr]).toEqual([0, text(all.slice(2)), '']);
  });

  // Session 20: a first page larger than --limit (the server ignores the limit asked) was printed
  // whole: --limit 2 printed 3.
  it('a first page larger than --limit is cut there, and its cursor continues exactly after', async () => {
    const all = await everyUser();
    pageAs(proxy(), 'pages-fixed');
    const first = await svc.run(['users', 'ls', '--limit', '2'], through());
    expect([first.code, first.stdout]).toEqual([0, text(all.slice(0, 2))]);
    const word = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(word).toBe("'svc-page:cursor=#skip=2'");
    const rest = await svc.run(
      ['users', 'ls', '--cursor', 'svc-page:cursor=#skip=2', '--limit', '2'],
      through(),
    );
    expect([rest.code, rest.stdout]).toEqual([0, text(all.slice(2, 4))]);
    expect(/--cursor (\S+)/.exec(rest.stderr)?.[1]).toBe(
      "'svc-page:page=2&per_page=3#skip=1&printed=usr_auditor'",
    );
  });

  // Session 20: an older svc's cursor without its page size was sent as an opaque cursor.
  it('an older svc-page:page=N cursor without its size is refused with one line, exit 2, nothing asked', async () => {
    pageAs(proxy(), 'pages');
    const r = await svc.run(['users', 'ls', '--cursor', 'svc-page:page=3'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: the cursor "svc-page:page=3" was printed by an older svc and does not say the page size its page was counted in, so svc cannot ask for that page; run the listing again from the start (without --cursor) and continue from the cursor it prints\n',
    ]);
    expect(proxy().seen.filter((s) => s.startsWith('GET /v1/users'))).toEqual([]);
  });
});
