/**
 * review29b M2: a continuation's `&printed=` names rows left out as printed (repeats after a
 * --limit cut, keys printed on a page asked by position), never the row printed last before a
 * server's cursor, which cursorNaming writes in a field of its own (`&last=`). Taken as one, a
 * repeat after the cut made the next command leave out a row neither command printed, with a
 * warning that the server ignored the cursor. The server here pages by its own size: page 1 is k3,
 * k2, k1 and k3 again, with a next cursor; page 2 is empty.
 */
import { beforeAll, expect, it } from 'vitest';
import { useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);
const names = (s: string) => (JSON.parse(s) as Array<{ name: string }>).map((r) => r.name);

beforeAll(async () => {
  for (const n of ['k1', 'k2', 'k3'])
    await svc.run([
      'tenants',
      'api-keys',
      'create',
      'acme-treasury',
      '--name',
      n,
      '--kind',
      'publishable',
      '--json',
    ]);
});

it('a repeat after the --limit cut: the continuation prints the row after the cut, no cursor warning', async () => {
  proxy().set({
    path: (_m, asked) => asked.replace(/\?.*$/, ''),
    reshape(x) {
      if (x.method !== 'GET' || !/\/api-keys(\?|$)/.test(x.path)) return;
      const body = x.body as { items: unknown[] };
      x.body = /cursor=page2/.test(x.path)
        ? { ...body, items: [], next_cursor: null }
        : { ...body, items: [...body.items, body.items[0]], next_cursor: 'page2' };
    },
  });
  const env = { SVC_BASE_URL: proxy().url };
  const first = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury', '--limit', '2', '--json'], {
    env,
  });
  expect([first.code, names(first.stdout)], first.stderr).toEqual([0, ['k3', 'k2']]);
  const cursor = /--cursor '([^']+)'/.exec(first.stderr)![1]!;
  expect(cursor).toMatch(/^svc-page:cursor=#skip=2&printed=[^&]+$/);
  const rest = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury', '--cursor', cursor, '--json'], {
    env,
  });
  expect([rest.code, names(rest.stdout), rest.stderr]).toEqual([
    0,
    ['k1'],
    'the list changed while svc read it: 1 item seen twice was printed once\n',
  ]);
});
