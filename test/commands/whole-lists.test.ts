/**
 * Lists the API gives whole, in one answer (review27a F1, F2, F6): `oauth ls` and `tenants
 * api-keys ls`. svc printed its own cursor, a count of rows to skip (`svc-page:cursor=#skip=N`):
 * a key created or a client deleted between two commands made the continuation print a row twice
 * or skip one, unsaid, and a cursor of one tenant's keys skipped rows of another's. Now --limit
 * bounds the rows and the continuation says how many of how many were shown and to give --all; a
 * cursor on a whole answer is refused (exit 2). A server that pages its key list is followed by
 * its cursor (F2: svc handed the first answer back for page 2 and blamed the server for a loop).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);

const names = (stdout: string) => (JSON.parse(stdout) as Array<{ name: string }>).map((row) => row.name);
const idOf = (stdout: string, name: string) =>
  (JSON.parse(stdout) as Array<{ id: string; name: string }>).find((row) => row.name === name)!.id;

async function ok(argv: string[], env: Record<string, string> = {}) {
  const r = await svc.run(argv, { env });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

beforeAll(async () => {
  for (const name of ['k1', 'k2', 'k3']) {
    await ok([
      'tenants',
      'api-keys',
      'create',
      'acme-treasury',
      '--name',
      name,
      '--kind',
      'publishable',
      '--json',
    ]);
  }
  for (const name of ['p1', 'p2', 'p3']) {
    await ok([
      ...['oauth', 'create', '--name', name, '--redirect-uri', 'https://example.com/cb'],
      ...['--scope', 'read:exceptions', '--show-secret', '--json'],
    ]);
  }
});

describe('a list the API gives whole', () => {
  it('tenants api-keys ls --limit: how many of how many, and --all; no cursor to go wrong', async () => {
    const r = await ok(['tenants', 'api-keys', 'ls', 'acme-treasury', '--limit', '2', '--json']);
    expect([names(r.stdout), r.stderr]).toEqual([
      ['k3', 'k2'],
      '2 of 3 shown; every one with: svc tenants api-keys ls acme-treasury --json --all\n',
    ]);
  });

  it('oauth ls --limit: how many of how many, and --all', async () => {
    const every = names((await ok(['oauth', 'ls', '--json'])).stdout);
    const r = await ok(['oauth', 'ls', '--limit', '1']);
    expect(r.stdout.split('\t')[1]).toBe(every[0]);
    expect(r.stderr).toBe(`1 of ${every.length} shown; every one with: svc oauth ls --all\n`);
  });

  it.each([
    ['oauth ls', ['oauth', 'ls']],
    ['tenants api-keys ls', ['tenants', 'api-keys', 'ls', 'acme-treasury']],
  ])('svc %s refuses the cursor it printed before (a count of rows), naming --all', async (verb, argv) => {
    const r = await svc.run([...argv, '--cursor', 'svc-page:cursor=#skip=2']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: \`svc ${verb}\` takes no --cursor: the API gives this list whole, in one answer; give --all to list every one (or a larger --limit)\n`,
    ]);
  });

  it('a cursor past the end, on a terminal, never says the tenant has no clients (review27a F6)', async () => {
    const r = await svc.run(['oauth', 'ls', '--cursor', 'svc-page:cursor=#skip=99'], {
      tty: { stdout: true, stderr: true },
      columns: 200,
    });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).not.toContain('No OAuth clients');
  });

  it('oauth ls refuses any --cursor before a request', async () => {
    const r = await svc.run(['oauth', 'ls', '--cursor', 'eyJ2IjoxfQ']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: `svc oauth ls` takes no --cursor: the API gives this list whole, in one answer; give --all to list every one (or a larger --limit)\n',
    ]);
  });
});

describe('a server that pages its key list (review27a F2)', () => {
  const pageByTwo = () =>
    proxy().set({
      // The sandbox gives the list whole: the proxy pages it, by a cursor of its own.
      path: (_method, asked) => asked.replace(/\?cursor=page2$/, ''),
      reshape(x) {
        if (x.method !== 'GET' || !/\/api-keys(\?|$)/.test(x.path)) return;
        const body = x.body as { items: unknown[]; next_cursor?: string | null };
        const second = x.path.includes('cursor=page2');
        x.body = second
          ? { ...body, items: body.items.slice(2), next_cursor: null }
          : { ...body, items: body.items.slice(0, 2), next_cursor: 'page2' };
      },
    });

  it('is followed by its cursor: every key, one GET a page, exit 0', async () => {
    pageByTwo();
    const r = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury', '--json'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stderr, names(r.stdout)]).toEqual([0, '', ['k3', 'k2', 'k1']]);
    expect(proxy().seen.filter((line) => line.includes('/api-keys'))).toEqual([
      expect.stringMatching(/^GET \/v1\/tenants\/[\w-]+\/api-keys$/),
      expect.stringMatching(/^GET \/v1\/tenants\/[\w-]+\/api-keys\?cursor=page2$/),
    ]);
  });

  it("a continuation takes the server cursor, in svc's own form, and goes on there", async () => {
    pageByTwo();
    const env = { SVC_BASE_URL: proxy().url };
    const first = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury', '--limit', '2', '--json'], {
      env,
    });
    // The cursor names the key printed last (k2): a server that ignored it would answer k2 again.
    const cursor = `svc-page:cursor=page2#skip=0&last=${idOf(first.stdout, 'k2')}`;
    expect([first.code, names(first.stdout), first.stderr]).toEqual([
      0,
      ['k3', 'k2'],
      `2 shown; more with: svc tenants api-keys ls acme-treasury --json --cursor '${cursor}'  (or --all)\n`,
    ]);
    const rest = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury', '--cursor', cursor, '--json'], {
      env,
    });
    expect([rest.code, names(rest.stdout), rest.stderr]).toEqual([0, ['k1'], '']);
    // k2 is not on its last page: svc looks at the list's first page, which starts otherwise (k3).
    expect(
      proxy()
        .seen.filter((line) => line.includes('/api-keys'))
        .slice(-2),
    ).toEqual([
      expect.stringMatching(/^GET \/v1\/tenants\/[\w-]+\/api-keys\?cursor=page2$/),
      expect.stringMatching(/^GET \/v1\/tenants\/[\w-]+\/api-keys$/),
    ]);
  });
});

describe('keys withheld, counted on every page (fixnum2)', () => {
  /** Pages of two, the first withholding one key and the second two (only the first's was said). */
  const pageByTwoWithheld = () =>
    proxy().set({
      path: (_method, asked) => asked.replace(/\?cursor=page2$/, ''),
      reshape(x) {
        if (x.method !== 'GET' || !/\/api-keys(\?|$)/.test(x.path)) return;
        const body = x.body as { items: unknown[] };
        x.body = x.path.includes('cursor=page2')
          ? { ...body, items: body.items.slice(2), next_cursor: null, withheld: 2 }
          : { ...body, items: body.items.slice(0, 2), next_cursor: 'page2', withheld: 1 };
      },
    });
  const warning = (n: number, read = '') =>
    `warning: ${n} more key${n === 1 ? '' : 's'} of Acme Treasury (acme-treasury) not listed${read}: ${n === 1 ? 'its role grants' : 'their roles grant'} permissions you do not hold (a service-role key acts as tenant_admin); an administrator who holds them sees ${n === 1 ? 'it' : 'them'}\n`;

  it('every page read: the sum, after the list', async () => {
    pageByTwoWithheld();
    const r = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury', '--json'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, names(r.stdout), r.stderr]).toEqual([0, ['k3', 'k2', 'k1'], warning(3)]);
  });

  it('--limit stops after the first page: its count, said as of the pages read, then the continuation', async () => {
    pageByTwoWithheld();
    const r = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury', '--limit', '2', '--json'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, names(r.stdout), r.stderr]).toEqual([
      0,
      ['k3', 'k2'],
      `${warning(1, ' on the pages read')}2 shown; more with: svc tenants api-keys ls acme-treasury --json --cursor 'svc-page:cursor=page2#skip=0&last=${idOf(r.stdout, 'k2')}'  (or --all)\n`,
    ]);
  });

  it("from the continuation: that page's count only (the look at the list's start is not counted)", async () => {
    pageByTwoWithheld();
    const r = await svc.run(
      ['tenants', 'api-keys', 'ls', 'acme-treasury', '--cursor', 'svc-page:cursor=page2', '--json'],
      { env: { SVC_BASE_URL: proxy().url } },
    );
    expect([r.code, names(r.stdout), r.stderr]).toEqual([0, ['k1'], warning(2)]);
  });
});

describe('a cursor sent to a server that answers the key list whole (fixnum2)', () => {
  it('is printed with a warning when the answer starts as the list does: it may be the first keys again', async () => {
    // A server that ignores ?cursor= and answers whole (the sandbox refuses the parameter): the
    // keys "after the cursor" are k3, k2, k1, the first again; or a paging server's valid last
    // page whose keys before the cursor were revoked and purged since: refusing it would refuse
    // valid data (review28a L2), so the rows are printed, and the doubt is said on stderr.
    proxy().set({ path: (_method, asked) => asked.replace(/\?cursor=[^&]*$/, '') });
    const r = await svc.run(
      ['tenants', 'api-keys', 'ls', 'acme-treasury', '--cursor', 'svc-page:cursor=page2', '--json'],
      {
        env: { SVC_BASE_URL: proxy().url },
      },
    );
    expect([r.code, names(r.stdout), r.stderr]).toEqual([
      0,
      ['k3', 'k2', 'k1'],
      "warning: the server answered `svc tenants api-keys ls` for --cursor svc-page:cursor=page2 with a last page that starts with the same row as the list's first page: it may have ignored the cursor (then these are the list's first rows, not the ones after it), or the rows before the cursor were removed since; every one with: svc tenants api-keys ls acme-treasury --json --all\n",
    ]);
  });

  it('the cursor names the key printed last: an answer holding it is cut after it, though the list gained a key between the two reads', async () => {
    // Printed before: k3, k2, by a server that paged then. Now the server ignores ?cursor= and
    // answers every key, and a key is created before svc's look at the list's first page (the
    // proxy adds it there), so the two answers' first rows differ: the first-row check alone
    // printed k3, k2, k1 as the keys after the cursor, without a word (closing note of session 28).
    const keys = await ok(['tenants', 'api-keys', 'ls', 'acme-treasury', '--json']);
    const cursor = `svc-page:cursor=page2#skip=0&last=${idOf(keys.stdout, 'k2')}`;
    proxy().set({
      path: (_method, asked) => asked.replace(/\?cursor=[^&]*$/, ''),
      reshape(x) {
        if (x.method !== 'GET' || !/\/api-keys$/.test(x.path)) return;
        const body = x.body as { items: Array<Record<string, unknown>> };
        x.body = {
          ...body,
          items: [{ ...body.items[0], id: 'key_created_meanwhile', name: 'k4' }, ...body.items],
        };
      },
    });
    const r = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury', '--cursor', cursor, '--json'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, names(r.stdout), r.stderr]).toEqual([
      0,
      ['k1'],
      `warning: the server answered \`svc tenants api-keys ls\` for --cursor '${cursor}' with rows from before it: 1 row then ${idOf(keys.stdout, 'k2')}, the row printed last before the cursor (the server ignored the cursor, or rows were added ahead of it since); only the rows after ${idOf(keys.stdout, 'k2')} are printed; every one with: svc tenants api-keys ls acme-treasury --json --all\n`,
    ]);
  });

  it('a server ignoring the cursor that pages from the start: none of its first keys printed as the ones after the cursor, exit 1', async () => {
    const keys = await ok(['tenants', 'api-keys', 'ls', 'acme-treasury', '--json']);
    const cursor = `svc-page:cursor=page2#skip=0&last=${idOf(keys.stdout, 'k2')}`;
    // Every answer is the first page, k3 and k2, with a next cursor, whatever cursor was asked.
    proxy().set({
      path: (_method, asked) => asked.replace(/\?cursor=[^&]*$/, ''),
      reshape(x) {
        if (x.method !== 'GET' || !/\/api-keys(\?|$)/.test(x.path)) return;
        const body = x.body as { items: unknown[] };
        x.body = { ...body, items: body.items.slice(0, 2), next_cursor: 'page2' };
      },
    });
    const r = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury', '--cursor', cursor, '--json'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'cursor_loop' });
  });

  it('an answer starting with the key the cursor names is printed from the key after it, without a word', async () => {
    // `--limit 1` printed k3, the list's first key; a server ignoring the cursor answers k3, k2, k1.
    const keys = await ok(['tenants', 'api-keys', 'ls', 'acme-treasury', '--json']);
    const cursor = `svc-page:cursor=page2#skip=0&last=${idOf(keys.stdout, 'k3')}`;
    proxy().set({ path: (_method, asked) => asked.replace(/\?cursor=[^&]*$/, '') });
    const r = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury', '--cursor', cursor, '--json'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, names(r.stdout), r.stderr]).toEqual([0, ['k2', 'k1'], '']);
    // No look at the list's first page: the answer said where the cursor is.
    expect(
      proxy()
        .seen.filter((line) => line.includes('/api-keys'))
        .slice(-1),
    ).toEqual([expect.stringMatching(/\?cursor=page2$/)]);
  });

  it("a paging server's last page without any paging field is still printed: it does not start as the list does", async () => {
    proxy().set({
      path: (_method, asked) => asked.replace(/\?cursor=page2$/, ''),
      reshape(x) {
        if (x.method !== 'GET' || !/\/api-keys(\?|$)/.test(x.path)) return;
        const body = x.body as { items: unknown[]; next_cursor?: string | null };
        const { next_cursor: _, ...rest } = body;
        x.body = x.path.includes('cursor=page2')
          ? { ...rest, items: body.items.slice(2) }
          : { ...rest, items: body.items.slice(0, 2), next_cursor: 'page2' };
      },
    });
    const r = await svc.run(
      ['tenants', 'api-keys', 'ls', 'acme-treasury', '--cursor', 'svc-page:cursor=page2', '--json'],
      { env: { SVC_BASE_URL: proxy().url } },
    );
    expect([r.code, names(r.stdout), r.stderr]).toEqual([0, ['k1'], '']);
  });
});
