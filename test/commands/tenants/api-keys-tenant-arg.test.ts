/**
 * The TENANT argument of `svc tenants api-keys` verbs (attack24c F2, F3). An empty or blank one
 * listed the profile's tenant's keys under the name the script gave (a loop over an unset `$T`);
 * one that names another tenant than --tenant/SVC_TENANT silently won, and a --tenant naming no
 * tenant was never checked. Both are refused before any request.
 */
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

describe('tenants api-keys: an empty TENANT (attack24c F2)', () => {
  it.each([[''], [' ']])('ls %j is refused, exit 2, nothing listed', async (given) => {
    const r = await svc.run(['tenants', 'api-keys', 'ls', given]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: TENANT must not be empty\n');
  });
});
