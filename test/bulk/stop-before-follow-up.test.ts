import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole, held } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';

// truth22 6: a stop lets a bulk row's request on the wire finish, but a row's follow-up request
// (--extend's PATCH after the grant was found held) still started after it. After a stop nothing
// new is sent: the PATCH is not, the grant keeps its expiry, and the run ends 130 to be resumed.
const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);
let stop: AbortController | undefined;
const seen: string[] = [];
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: (method, path) => {
    seen.push(`${method} ${path}`);
    // The stop comes while the row's grant request is on the wire.
    if (stop && method === 'POST' && path.startsWith('/v1/users/')) stop.abort();
  },
});

describe('a stop before a bulk row’s follow-up request', () => {
  it('--extend of a held grant: the POST finishes, the PATCH is never sent, exit 130', async () => {
    const role = 'stop-follow-up';
    await customRole(sandbox(), role);
    const user = bulkUser(1);
    const first = await svc.run([
      'roles',
      'assign',
      user,
      role,
      '--expires-in',
      '1h',
      '--justification',
      'first',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const before = await held(sandbox(), user);
    const path = svc.file(`${role}.csv`, `user,role,expires_in,justification\n${user},${role},8h,moved\n`);
    stop = new AbortController();
    seen.length = 0;
    const r = await svc.run(['roles', 'assign', '--file', path, '--extend', '--yes', '--ndjson'], {
      signal: stop.signal,
      env: { SVC_BASE_URL: proxy().url },
    });
    stop = undefined;
    expect(r.code, r.stderr).toBe(130);
    expect(seen.filter((s) => s.startsWith('PATCH'))).toEqual([]);
    expect(await held(sandbox(), user)).toEqual(before);
    const [row] = ndjson(r.stdout);
    expect([row.status, row.error]).toEqual([
      'failed',
      {
        code: 'interrupted',
        message: `interrupted before it was sent: PATCH /v1/users/${user}/roles/${row.role_id} was not sent; nothing was changed`,
      },
    ]);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.message).toBe('interrupted after 1 of 1');
  });
});
