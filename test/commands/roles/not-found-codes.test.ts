// A 404 is a 404: a role resolved by name on a server whose 404 code is not svc's spelling
// (`NOT_FOUND`, `role_not_found`, `notFound`, an `error` that is a string) is found by its name,
// never "not found" (attack27a F4); a code naming another resource is left as the server said it.
import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole } from '../../helpers/bulk.js';
import { useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 2 });
const svc = bulkRunner(sandbox);
const proxy = useReshapingProxy(sandbox);

async function with404(code: string | null, argv: string[]) {
  proxy().reshape((a) => {
    if (a.status !== 404) return;
    const body = a.body as { error?: { code?: string } };
    if (code === null) (a.body as Record<string, unknown>).error = 'x';
    else if (body?.error) body.error.code = code;
  });
  try {
    return await svc.run(argv, { env: { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' } });
  } finally {
    proxy().reshape(undefined);
  }
}

describe("a role named on a server whose 404 code is another's spelling", () => {
  it.each([['NOT_FOUND'], ['role_not_found'], ['notFound'], ['RoleNotFound'], [null]])(
    '404 code %j: roles get, holders and assign find the role by its name',
    async (code) => {
      const id = await customRole(sandbox(), `fx-${String(code)}`.toLowerCase().replace(/_/g, '-'));
      const name = `fx-${String(code)}`.toLowerCase().replace(/_/g, '-');
      const got = await with404(code, ['roles', 'get', name, '--json']);
      expect(got.code, got.stderr).toBe(0);
      expect(JSON.parse(got.stdout).id).toBe(id);
      const holders = await with404(code, ['roles', 'holders', name]);
      expect(holders.code, holders.stderr).toBe(0);
      const granted = await with404(code, [
        'roles',
        'assign',
        bulkUser(1),
        name,
        '--expires-in',
        '1h',
        '--justification',
        'quarter close',
      ]);
      expect(granted.code, granted.stderr).toBe(0);
      expect(granted.stderr).toContain(`✓ granted ${name}`);
    },
  );

  it('a role that does not exist is still not found, exit 5, whatever the spelling', async () => {
    const result = await with404('NOT_FOUND', ['roles', 'get', 'no-such-role']);
    expect(result.code).toBe(5);
    expect(result.stderr).toBe(
      'error: no role "no-such-role" in this tenant (HTTP 404, not_found); give the role id (role_…) of a deleted role, or see `svc roles ls --include-deleted`\n',
    );
  });
});
