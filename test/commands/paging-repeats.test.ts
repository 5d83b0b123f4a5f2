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
 *    the run (a picker's before its prompt), for every verb but completion (a TAB press writes nothing on stderr).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseFrom } from '../../src/commands/pick.js';
import { listRoles } from '../../src/commands/roles/shared.js';
import type { Choice, Prompter } from '../../src/system/prompter.js';
import { customRole } from '../helpers/bulk.js';
import { type LiveRun, ndjson, startInProcess } from '../helpers/context.js';
import { pageAs, rolesGainingOne } from '../helpers/paged-proxy.js';
import { useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

const svc = useSandboxContext({ users: 12 });
const proxy = useReshapingProxy(svc.sandbox);
const through = () => ({ env: { SVC_BASE_URL: proxy().url } });
const text = (lines: string[]) => `${lines.join('\n')}\n`;
const printed = 'the list changed while svc read it: 1 item seen twice was printed once';
const kept = (list = 'GET /v1/roles') =>
  `warning: the list ${list} changed while svc read it: 1 item seen twice was kept once\n`;

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
      const [, second, , fourth] = idsOf((await svc.run(['users', 'ls', '--limit', '4', '--ndjson'])).stdout);
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
      // An offset page names a3, printed on it, too: a list gaining a user ahead of it shifts a3 past the skip.
      expect([cursor, next.code, next.stdout]).toEqual([
        `${page}#skip=1&printed=${shape === 'offset-twice' ? `${fourth},` : ''}${second}`,
        0,
        text(all.slice(4, 6)),
      ]);
    },
  );

  it('an item listed twice after the cut, both copies: not named as printed, and the next command prints it once (review23a F1)', async () => {
    const all = await everyUser();
    pageAs(proxy(), 'offset-doubled');
    // Page 1 is [a0, a1, a1]: --limit 1 prints a0 and stops, both copies of a1 still ahead.
    const first = await svc.run(['users', 'ls', '--limit', '1'], through());
    const cursor = cursorIn(first.stderr);
    expect([first.code, first.stdout, cursor]).toEqual([0, text(all.slice(0, 1)), 'svc-page:cursor=#skip=1']);
    expect(first.stderr).not.toContain('seen twice');
    const next = await svc.run(['users', 'ls', '--limit', '3', '--cursor', cursor], through());
    expect([next.code, next.stdout, next.stderr.split('\n')[0]]).toEqual([0, text(all.slice(1, 4)), printed]);
  });

  it('--all from that cursor prints the rest of the list, each once, and nothing to say', async () => {
    const all = await everyUser();
    pageAs(proxy(), 'offset-twice');
    const first = await svc.run(['users', 'ls', '--limit', '4'], through());
    const rest = await svc.run(['users', 'ls', '--all', '--cursor', cursorIn(first.stderr)], through());
    expect([rest.code, rest.stdout, rest.stderr]).toEqual([0, text(all.slice(4)), '']);
  });
});

describe("a --limit cut exactly at a page's end (closing note of session 23)", () => {
  it.each([
    ['offset pages', 'offset-insert', 'svc-page:offset=3'],
    ['links', 'link', 'svc-page:link=/v1/users?limit=3&offset=3'],
  ] as const)(
    '%s: the cursor names the items printed last, and a list gaining one at its head meanwhile prints none again',
    async (_what, shape, page) => {
      const all = await everyUser();
      const ids = idsOf((await svc.run(['users', 'ls', '--limit', '3', '--ndjson'])).stdout);
      pageAs(proxy(), shape);
      // Page 1 is [a0, a1, a2], all printed; under 'offset-insert' the next command's page 2 is
      // [a2, a3, a4] (the list gained a user at its head meanwhile).
      const first = await svc.run(['users', 'ls', '--limit', '3'], through());
      const cursor = cursorIn(first.stderr);
      const next = await svc.run(['users', 'ls', '--limit', '3', '--cursor', cursor], through());
      expect([first.code, first.stdout, next.code, next.stdout, cursor]).toEqual([
        0,
        text(all.slice(0, 3)),
        0,
        text(all.slice(3, 6)),
        `${page}#skip=0&printed=${ids.join(',')}`,
      ]);
    },
  );
});

/**
 * The verbs that read a list whole to find something in it: the roles of the tenant, read in
 * offset pages of three, pages after the first seeing a role added at the list's head.
 */
describe('a lookup reading a list that changed while svc read it (brief paging23 3)', () => {
  it('a bulk run says it once, a warning after its summary; its rows as they were', async () => {
    const dir = tempDir('svc-paging23-');
    try {
      const file = join(dir, 'grants.csv');
      writeFileSync(file, 'user,role,expires_in,justification\nusr_bulk_000001,tenant_viewer,never,t\n');
      const argv = ['roles', 'assign', '--file', file, '--dry-run', '--ndjson'];
      const direct = await svc.run(argv);
      rolesGainingOne(proxy());
      const r = await svc.run(argv, through());
      expect([r.code, r.stdout, r.stderr]).toEqual([direct.code, direct.stdout, `${direct.stderr}${kept()}`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('roles holders of a role named, the same', async () => {
    await customRole(svc.sandbox(), 'desk-paging23');
    const argv = ['roles', 'holders', 'desk-paging23'];
    const direct = await svc.run(argv);
    rolesGainingOne(proxy());
    const r = await svc.run(argv, through());
    expect([r.code, r.stdout, r.stderr]).toEqual([direct.code, direct.stdout, `${direct.stderr}${kept()}`]);
  });

  it('a picker offers each tenant once and says it before the prompt, beside the list it bears on (closing note of session 23)', async () => {
    const offered: string[] = [];
    let atPrompt: string | undefined;
    let live: LiveRun | undefined;
    const refuse = () => Promise.reject(new Error('unexpected prompt'));
    const prompter: Prompter = {
      input: refuse,
      password: refuse,
      confirm: refuse,
      select: async <T>(_message: string, choices: Array<Choice<T>>) => {
        offered.push(...choices.map((c) => c.name));
        atPrompt = live?.stderr();
        return choices[0]!.value;
      },
    };
    // As an org_admin with no tenant set, at a terminal: `tenants api-keys ls` asks which tenant.
    const env = { ...svc.env(), SVC_TENANT: undefined, SVC_ORG: 'org_demo' };
    const argv = ['tenants', 'api-keys', 'ls', '--json'];
    live = startInProcess(argv, env, { tty: true, prompter });
    const direct = await live.done;
    const shown = offered.splice(0);
    expect([shown.length > 3, atPrompt]).toEqual([true, '']);
    pageAs(proxy(), 'offset-insert');
    live = startInProcess(argv, { ...env, SVC_BASE_URL: proxy().url }, { tty: true, prompter });
    const r = await live.done;
    const warning = kept('GET /v1/tenants');
    expect([r.code, r.stdout, atPrompt, r.stderr, offered]).toEqual([
      direct.code,
      direct.stdout,
      warning,
      `${warning}${direct.stderr}`,
      shown,
    ]);
  });

  it("a picker says before its prompt only its own list's warning; another list read before it is said at the run's end (review24a L2)", async () => {
    rolesGainingOne(proxy());
    let atPrompt: string | undefined;
    const refuse = () => Promise.reject(new Error('unexpected prompt'));
    const made = svc.context({
      env: { SVC_BASE_URL: proxy().url },
      tty: true,
      prompter: {
        input: refuse,
        password: refuse,
        confirm: refuse,
        select: async <T>(_message: string, choices: Array<Choice<T>>) => {
          atPrompt = made.stderr();
          return choices[0]!.value;
        },
      },
    });
    // A role lookup reads the roles whole first (one kept once), then a picker reads a list of its
    // own that did not change (roles revoke's: one page).
    expect((await listRoles(await made.ctx.platform())).length).toBeGreaterThan(3);
    const chosen = await chooseFrom(made.ctx, 'Role to revoke', async () => [
      { name: 'tenant_viewer', value: 'v' },
    ]);
    // Was the roles' warning, said before the prompt of a list it does not bear on.
    expect([chosen, atPrompt]).toEqual(['v', '']);
    await made.ctx.sayAtEnd();
    expect(made.stderr()).toBe(kept());
  });

  it.each([
    ['--json', ['--json']],
    ['text', []],
  ])(
    'a command that fails says it before its error, which stays the last line of stderr (%s; review23a F2)',
    async (_mode, mode) => {
      const role = `desk-rev23a${mode.join('')}`;
      await customRole(svc.sandbox(), role);
      const argv = [
        'roles',
        'assign',
        'usr_nobody',
        role,
        '--expires-in',
        '1h',
        '--justification',
        'x',
        ...mode,
      ];
      const lines = (stderr: string) => stderr.replace(/req_[0-9a-f]+/g, 'req_N').split(/(?<=\n)/);
      const direct = lines((await svc.run(argv)).stderr);
      rolesGainingOne(proxy());
      const r = await svc.run(argv, through());
      expect([r.code, r.stdout, lines(r.stderr)]).toEqual([
        5,
        '',
        [...direct.slice(0, -1), kept(), direct.at(-1)],
      ]);
      if (mode.length > 0) expect(JSON.parse(direct.at(-1)!).error.exit_code).toBe(5);
    },
  );

  it('completion offers the names and writes nothing on stderr (a TAB press)', async () => {
    const direct = await svc.run(['__complete', 'roles']);
    rolesGainingOne(proxy());
    const r = await svc.run(['__complete', 'roles'], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([0, direct.stdout, '']);
    expect(direct.stdout.split('\n').length).toBeGreaterThan(4);
  });
});
