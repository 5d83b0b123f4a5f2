import { describe, expect, it } from 'vitest';
import { bulkUser } from '../../helpers/bulk.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// review26a M2: a role name given to a change was looked up with include_deleted=true, a query
// parameter the reference's GET /v1/roles does not have; a server that refuses unknown parameters
// (400 invalid_parameter) failed every change of a custom role given by name. The live roles are
// read first, without it; it is asked for only when no live role has the name, and a refusal of
// that read leaves the name unknown, as before.
const svc = useSandboxContext({ users: 10 });
const proxy = useReshapingProxy(svc.sandbox);
const viaProxy = (argv: string[]) => svc.run(argv, { env: { SVC_BASE_URL: proxy().url }, now: Date.now() });

/** A server that refuses include_deleted, as one refuses any parameter it does not have. */
const strict = (answer: Reshaped): void => {
  if (answer.method === 'GET' && answer.path.includes('include_deleted')) {
    answer.status = 400;
    answer.body = {
      error: {
        code: 'invalid_parameter',
        message: 'unknown query parameter include_deleted',
        request_id: 'req_strict',
      },
    };
  }
};

describe('a role name on a server that refuses include_deleted', () => {
  it('roles assign NAME: granted, and include_deleted never sent', async () => {
    const made = await svc.run(['roles', 'create', '--name', 'm2-ops', '--permission', 'exception.read']);
    expect(made.code, made.stderr).toBe(0);
    proxy().set({ reshape: strict });
    const user = bulkUser(3);
    const r = await viaProxy([
      'roles',
      'assign',
      user,
      'm2-ops',
      '--expires-in',
      '1d',
      '--justification',
      'x',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^✓ granted m2-ops to ${user} `));
    expect(proxy().seen.filter((line) => line.includes('include_deleted'))).toEqual([]);
  });

  it('a name no live role has: the deleted ones asked for; refused, it is an unknown role (exit 5)', async () => {
    proxy().set({ reshape: strict });
    const r = await viaProxy([
      'roles',
      'assign',
      bulkUser(4),
      'm2-nothing',
      '--expires-in',
      '1d',
      '--justification',
      'x',
    ]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/^error: unknown role "?m2-nothing"? .*in this tenant/);
    expect(proxy().seen.some((line) => line.includes('include_deleted=true'))).toBe(true);
  });
});
