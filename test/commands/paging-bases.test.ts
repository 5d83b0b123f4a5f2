/**
 * Numbered pages whose numbers svc cannot take as they say (fix-list21 3), in-process through a
 * proxy that pages the sandbox's users three at a time (test/helpers/paged-proxy.ts):
 * - (a) a server counting from 1 whose first page says `page: 0`: svc counted from 0, asked page=1
 *   and got the first page again (printed twice), and never asked for the last: 21 lines, 3 of
 *   them twice and 3 users missing, exit 0. Now a page repeating the items of the page before
 *   stops the listing before it is printed, exit 1;
 * - (a) pages with total_pages and no page number: the first page was the whole listing, exit 0;
 * - (b) page 2 one item short in the size asked while the total counts it: 20 of 21, exit 0.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ndjson } from '../helpers/context.js';
import { pageAs, rolesGainingOne } from '../helpers/paged-proxy.js';
import { type Exchange, useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

const svc = useSandboxContext({ users: 12 });
const proxy = useReshapingProxy(svc.sandbox);
const through = () => ({ env: { SVC_BASE_URL: proxy().url } });
const text = (lines: string[]) => `${lines.join('\n')}\n`;

async function everyUser(): Promise<string[]> {
  const direct = await svc.run(['users', 'ls', '--all']);
  const lines = direct.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(21);
  return lines;
}

describe('numbered pages svc cannot take as they say (fix-list21 3)', () => {
  it('a page repeating the page before (counted from 1, the first saying page 0) stops the listing, nothing twice, exit 1', async () => {
    const all = await everyUser();
    pageAs(proxy(), 'pages-said-zero');
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      text(all.slice(0, 3)),
      `error: the listing is incomplete: it stopped after 3 items, when the next page failed: page 1 of the listing, as svc counted the pages (from 0, as the first page said), repeats the whole page before it (${all[0]!.split(/\s/)[0]}): the server counts its pages otherwise than its first page said, or ignores the page number asked for, so the page after it would never be read (or the list gained a whole page of items while svc read it); svc stopped, so the listing is incomplete; run the command again from the start (without --cursor); if it repeats on every run while the list is not changing, the server's paging is broken: report it to its operator\n`,
    ]);
    const api = await svc.run(['api', '/v1/users', '--paginate', '--ndjson'], through());
    expect([api.code, api.stdout.trimEnd().split('\n').length]).toEqual([1, 3]);
  });

  it('pages counted by total_pages with no page number stop after the first with one line, exit 1', async () => {
    const all = await everyUser();
    pageAs(proxy(), 'pages-unnumbered');
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      `error: the server's answer to GET /v1/users counts 7 pages (total_pages) but does not say which page it is (page), so not which page comes next (a server counting its pages from 0 and one counting from 1 answer page=1 differently); svc stopped, so the listing is incomplete; the server's paging is not one svc understands: report it to its operator\n`,
    ]);
    expect(all).toHaveLength(21);
  });

  it('a short page mid-list with the total counting more: every page is read on, then the listing stops short, exit 1', async () => {
    const all = await everyUser();
    pageAs(proxy(), 'pages-short-mid');
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect([r.code, r.stdout]).toEqual([1, text([...all.slice(0, 3), ...all.slice(4, 18)])]);
    expect(r.stderr).toBe(
      "error: the listing is incomplete: it stopped after 17 items, when the next page failed: the server's answer to GET /v1/users is page 7 with 3 items and no page after it, but counts 21 items (total), and the pages up to it hold 20 items at most: the others are on no page svc can ask for; svc stopped, so the listing is incomplete; the server's list changed while svc read it, or its paging is broken: run the command again from the start (without --cursor), or report it to the server's operator\n",
    );
  });
});

/**
 * The repeat check for every kind of item and every paging by position (review21 F3, F5): role
 * assignments have no `id`, so the check compared nothing and a repeated page of grants was
 * printed twice with one left out (exit 0), and `svc export` wrote 12 grants of 13 (a plan of it
 * then proposed revoking the one missing); an offset-paged list gaining an item at its head
 * between pages printed the last item of each page twice (exit 0).
 */
describe('a page repeating the page before, for every kind and paging (review21 F3, F5)', () => {
  const saidZero = (shown: string) =>
    `page 1 of the listing, as svc counted the pages (from 0, as the first page said), repeats the whole page before it (${shown}): the server counts its pages otherwise than its first page said, or ignores the page number asked for, so the page after it would never be read (or the list gained a whole page of items while svc read it); svc stopped, so the listing is incomplete; run the command again from the start (without --cursor); if it repeats on every run while the list is not changing, the server's paging is broken: report it to its operator`;

  it('role assignments (no id) repeated on a numbered page stop the listing, nothing twice, exit 1', async () => {
    const argv = ['roles', 'assignments', '--all', '--no-include-ended', '--ndjson'];
    const direct = await svc.run(argv);
    const grants = ndjson(direct.stdout) as Array<{
      user_id: string;
      role_id: string;
      audit_trail_id: string;
    }>;
    expect(grants.length).toBeGreaterThan(3);
    pageAs(proxy(), 'pages-said-zero');
    const r = await svc.run(argv, through());
    const first = grants[0]!;
    const [message, hint] = saidZero(`${first.user_id} ${first.role_id} ${first.audit_trail_id}`).split(
      '; run the command',
    );
    expect([r.code, ndjson(r.stdout), ndjson(r.stderr)]).toEqual([
      1,
      grants.slice(0, 3),
      [
        {
          error: {
            code: 'paging_moved',
            message: `the listing is incomplete: it stopped after 3 items, when the next page failed: ${message}`,
            exit_code: 1,
            hint: `run the command${hint}`,
          },
        },
      ],
    ]);
  });

  it('svc export over a repeated page of grants writes nothing, exit 1 (never a grant left out)', async () => {
    pageAs(proxy(), 'pages-said-zero');
    const r = await svc.run(['export'], through());
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(/repeats the whole page before it \(usr_\S+ \S+ \S+\)/);
    expect(r.stderr).toContain('svc stopped, so the listing is incomplete');
  });

  it('an offset-paged list gaining an item at its head between pages prints every item once and says so, exit 0 (review21c F4)', async () => {
    const all = await everyUser();
    const note = 'the list changed while svc read it: 1 item seen twice was printed once\n';
    pageAs(proxy(), 'offset-insert');
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([0, text(all), note]);
    const ids = (await svc.run(['users', 'ls', '--all', '--ndjson'])).stdout;
    const api = await svc.run(['api', '/v1/users', '--paginate', '--ndjson'], through());
    const shown = (out: string) => ndjson(out).map((user) => (user as { id: string }).id);
    expect([api.code, shown(api.stdout), api.stderr]).toEqual([0, shown(ids), note]);
    const json = await svc.run(['api', '/v1/users', '--paginate', '--json'], through());
    expect([
      json.code,
      (JSON.parse(json.stdout) as Array<{ id: string }>).map((user) => user.id),
      json.stderr,
    ]).toEqual([0, shown(ids), note]);
  });
});

/**
 * Rows with no identity (another server's check log through `svc api --paginate`), offset pages of
 * three, rows 3 and 4 equal: the list never changes, yet their JSON as a key stopped it on every
 * run, exit 1, "report the server" (review21c F2).
 */
describe('rows without an identity (review21c F2)', () => {
  it('two equal rows either side of a page boundary are both printed, exit 0', async () => {
    const rows = [
      { status: 'ok', region: 'us' },
      { status: 'ok', region: 'eu' },
      { status: 'failed', region: 'eu' },
      { status: 'failed', region: 'eu' },
      { status: 'ok', region: 'ap' },
    ];
    // The sandbox is asked its first page; the proxy answers every offset from `rows`.
    proxy().rewrite((method, path) =>
      method === 'GET' && path.startsWith('/v1/users?') ? '/v1/users' : path,
    );
    proxy().reshape((x: Exchange) => {
      const url = new URL(x.path, 'http://x');
      if (x.method !== 'GET' || url.pathname !== '/v1/users' || x.status !== 200) return;
      const from = Number(url.searchParams.get('offset') ?? 0);
      x.body = { items: rows.slice(from, from + 3), has_more: from + 3 < rows.length, next_offset: from + 3 };
    });
    const r = await svc.run(['api', '/v1/users', '--paginate', '--ndjson'], through());
    expect([r.code, ndjson(r.stdout), r.stderr]).toEqual([0, rows, '']);
  });
});

/**
 * `--limit N` over pages larger than asked (a server that ignores the `limit`), of a list gaining
 * an item at its head after the first page (R21d-2): page 2 (offset 3) starts with the first
 * page's last item, left out as a repeat; the cursor printed counted the items printed, not the
 * repeat before them, so `#skip=1` named the repeat and the next command printed an item again.
 */
describe('a --limit cut within a page that repeated items of the page before (R21d-2)', () => {
  it('the cursor printed continues exactly after the last item printed, nothing twice', async () => {
    const all = await everyUser();
    pageAs(proxy(), 'offset-insert-fixed');
    const first = await svc.run(['users', 'ls', '--limit', '4'], through());
    const hint = first.stderr.split('\n')[1] ?? '';
    expect([first.code, first.stdout, first.stderr.split('\n')[0]]).toEqual([
      0,
      text(all.slice(0, 4)),
      'the list changed while svc read it: 1 item seen twice was printed once',
    ]);
    const cursor = /--cursor (\S+)/.exec(hint)?.[1]?.replace(/^'|'$/g, '') ?? '';
    expect(cursor).toBe('svc-page:offset=3#skip=2&printed=usr_analyst,usr_auditor');
    const next = await svc.run(['users', 'ls', '--limit', '2', '--cursor', cursor], through());
    expect([next.code, next.stdout]).toEqual([0, text(all.slice(4, 6))]);
  });
});

/**
 * `svc export`, `plan` and `apply` read their lists whole and kept a repeated item once without a
 * word (brief paging22 2): a listing that changed while svc read it is something the person
 * running them must know (an unstable order can also leave an item out). One warning on stderr,
 * naming the list; stdout unchanged.
 */
describe('export, plan and apply over a list that changed while svc read it (brief paging22 2)', () => {
  // A warning naming the list, as every other command says it (closing note of session 23); export,
  // plan and apply read each tenant's lists in that tenant (acme-treasury's id).
  const note =
    'warning: the list GET /v1/role-assignments in tenant 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 changed while svc read it: 1 item seen twice was kept once\n';
  const timeless = (out: string) => out.replace(/^# svc export of .*\n/, '');

  it('svc export writes every grant once and says so, once; --json alike', async () => {
    const direct = await svc.run(['export', '--only', 'grants']);
    const json = await svc.run(['export', '--only', 'grants', '--json']);
    pageAs(proxy(), 'offset-insert');
    const r = await svc.run(['export', '--only', 'grants'], through());
    expect([r.code, timeless(r.stdout), r.stderr]).toEqual([
      0,
      timeless(direct.stdout),
      `${note}${direct.stderr}`,
    ]);
    const j = await svc.run(['export', '--only', 'grants', '--json'], through());
    expect([j.code, j.stdout.replace(/"exported_at": "[^"]*"/, ''), j.stderr]).toEqual([
      0,
      json.stdout.replace(/"exported_at": "[^"]*"/, ''),
      `${note}${json.stderr}`,
    ]);
  });

  it('svc plan and svc apply of that export say it once, and find nothing to change', async () => {
    const dir = tempDir('svc-paging22-');
    try {
      const file = join(dir, 'access.yaml');
      writeFileSync(file, (await svc.run(['export', '--only', 'grants'])).stdout);
      const plan = await svc.run(['plan', '-f', file]);
      const apply = await svc.run(['apply', '-f', file, '--yes']);
      pageAs(proxy(), 'offset-insert');
      const paged = await svc.run(['plan', '-f', file], through());
      expect([paged.code, paged.stdout, paged.stderr]).toEqual([
        plan.code,
        plan.stdout,
        `${note}${plan.stderr}`,
      ]);
      // apply says it at the end of all its reads (the plan's, the drift check's, its steps').
      const applied = await svc.run(['apply', '-f', file, '--yes'], through());
      expect([applied.code, applied.stdout, applied.stderr]).toEqual([
        apply.code,
        apply.stdout,
        `${apply.stderr}${note}`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * `roles ls` and `webhooks ls` read their list whole (no --limit): a repeated item was printed
 * once without the line every other listing says (brief paging22 2).
 */
describe('roles ls over a list that changed while svc read it (brief paging22 2)', () => {
  it('prints every role once and says so, exit 0', async () => {
    const direct = await svc.run(['roles', 'ls']);
    rolesGainingOne(proxy());
    const r = await svc.run(['roles', 'ls'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      direct.stdout,
      'the list changed while svc read it: 1 item seen twice was printed once\n',
    ]);
  });
});
