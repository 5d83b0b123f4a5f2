/**
 * Lists read from servers that hand an item back twice (brief paging23), through the proxy that
 * pages the sandbox's users three at a time whatever the limit asked (test/helpers/paged-proxy.ts):
 * 1. a page of the server's own cursor repeating *some* items of the pages before (an offset inside
 *    an opaque cursor, over a list gaining a user at its head; a user listed a second time further
 *    on) was printed as it came: a row twice, exit 0, no word. Every item is now printed once, and
 *    the note of every listing says so;
 * 2. `--limit 4` cut page 2 ([a3, a4, a1]) after a3: its cursor named the page with `#skip=1`, and
 *    the next command, with no page before to compare, printed a1 again. The cursor now names the
 *    items of the page after the cut already printed (`&printed=`), and the next command leaves
 *    them out;
 * 3. the verbs reading a list whole to look something up (a bulk run's roles, `roles holders` by
 *    name, a picker's tenants) kept a repeat once without a word; one rule now says it once, a warning at the end of
 *    the run, for every verb but completion (a TAB press writes nothing on stderr).
 */
import { describe, expect, it } from 'vitest';
import { ndjson } from '../helpers/context.js';
import { pageAs } from '../helpers/paged-proxy.js';
import { useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext({ users: 12 });
const proxy = useReshapingProxy(svc.sandbox);
const through = () => ({ env: { SVC_BASE_URL: proxy().url } });
const text = (lines: string[]) => `${lines.join('\n')}\n`;
const printed = 'the list changed while svc read it: 1 item seen twice was printed once';

async function everyUser(): Promise<string[]> {
  const lines = (await svc.run(['users', 'ls', '--all'])).stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(21);
  return lines;
}
const idsOf = (out: string) => ndjson(out).map((user) => (user as { id: string }).id);
const cursorIn = (stderr: string) => /--cursor (\S+)/.exec(stderr)?.[1]?.replace(/^'|'$/g, '') ?? '';

describe("pages of the server's own cursor repeating some items of the pages before (brief paging23 1)", () => {
  it.each([
    ['gaining a user at its head (page 2 starts with the last of page 1)', 'cursor-insert'],
    ['listing a user a second time on page 2, after two others', 'cursor-twice'],
  ] as const)('a list %s: every user printed once, and said, exit 0', async (_what, shape) => {
    const all = await everyUser();
    const ids = idsOf((await svc.run(['users', 'ls', '--all', '--ndjson'])).stdout);
    pageAs(proxy(), shape);
    const r = await svc.run(['users', 'ls', '--all'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([0, text(all), `${printed}\n`]);
    const api = await svc.run(['api', '/v1/users', '--paginate', '--ndjson'], through());
    expect([api.code, idsOf(api.stdout), api.stderr]).toEqual([0, ids, `${printed}\n`]);
  });
});

describe('a --limit cut before a repeat further on its page (brief paging23 2)', () => {
  it.each([
    ['offset pages', 'offset-twice', 'svc-page:offset=3'],
    ["the server's cursor", 'cursor-twice', 'svc-page:cursor=bzoz'],
  ] as const)(
    '%s: the next command prints the items after the last printed, none again',
    async (_what, shape, page) => {
      const all = await everyUser();
      const [, second] = idsOf((await svc.run(['users', 'ls', '--limit', '2', '--ndjson'])).stdout);
      pageAs(proxy(), shape);
      // Page 2 is [a3, a4, a1]: --limit 4 prints a0 … a3 and stops after a3, a1 still ahead on the page.
      const first = await svc.run(['users', 'ls', '--limit', '4'], through());
      expect([first.code, first.stdout, first.stderr.split('\n')[0]]).toEqual([
        0,
        text(all.slice(0, 4)),
        printed,
      ]);
      const cursor = cursorIn(first.stderr);
      const next = await svc.run(['users', 'ls', '--limit', '2', '--cursor', cursor], through());
      expect([cursor, next.code, next.stdout]).toEqual([
        `${page}#skip=1&printed=${second}`,
        0,
        text(all.slice(4, 6)),
      ]);
    },
  );

  it('--all from that cursor prints the rest of the list, each once, and nothing to say', async () => {
    const all = await everyUser();
    pageAs(proxy(), 'offset-twice');
    const first = await svc.run(['users', 'ls', '--limit', '4'], through());
    const rest = await svc.run(['users', 'ls', '--all', '--cursor', cursorIn(first.stderr)], through());
    expect([rest.code, rest.stdout, rest.stderr]).toEqual([0, text(all.slice(4)), '']);
  });
});
