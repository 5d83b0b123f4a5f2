import { describe, expect, it } from 'vitest';
import { blindNeed } from '../../src/api/record-acts.js';
import { blindRefusal } from '../../src/sandbox/domain/authorization.js';
import { tenantId } from '../../src/sandbox/seed.js';
import type { Principal } from '../../src/sandbox/types.js';
import { useSandbox } from '../helpers/sandbox.js';

// Session 17 (closing list, words): the blind refusal (a change of a record the caller cannot
// read) told an API key to use "a service-role key or a user's login" without saying that no grant
// changes what a key reads, nor, for a delete, what a key's holder can do to learn whether the
// record exists; the words a person gets ("ask a tenant_admin ... for exception.read") do not fit a
// key. A key's role is fixed by its kind, so its words name what its holder can do. (No built-in
// key writes without reading in the sandbox: this is the rule's own words, called directly.)
const sandbox = useSandbox();
const LABS = tenantId('acme-labs');

const key = (roles: string[]): Principal => ({
  kind: 'publishable_key',
  subject: 'key_test',
  user: null,
  tenantIds: [LABS],
  orgId: null,
  scopes: null,
  expiresAtMs: null,
  fixedRoles: roles,
  clientId: null,
  clientTenantId: null,
  tokenId: null,
  issuedBy: 'usr_admin',
});

describe("the blind refusal's words to an API key", () => {
  const FIXED = 'this API key acts as tenant_viewer, fixed by its kind (no grant changes what a key holds)';
  const OTHER =
    "a user's login that holds rule.read, or a service-role key (a user with api_key.manage issues one)";
  it.each<['change' | 'delete', string]>([
    [
      'change',
      `${FIXED}, which does not grant rule.read; whoever holds the key can use ${OTHER}, for this change`,
    ],
    [
      'delete',
      `${FIXED}, which does not grant rule.read; whoever holds the key can ask someone who holds rule.read whether it exists, or use ${OTHER}, for this delete`,
    ],
  ])('a %s', (act, fix) => {
    const tenant = sandbox().state.identity.tenantsById.get(LABS)!;
    const need = blindNeed('rules', 'rule.read', act);
    const error = blindRefusal(sandbox().state, key(['tenant_viewer']), tenant, need, 'rule.read', act);
    expect([error.code, error.message]).toEqual(['insufficient_role', `${need} in tenant acme-labs; ${fix}`]);
    expect(error.message).not.toMatch(/ask a tenant_admin/);
    // svc's own hint then offers another credential, not a tenant administrator's grant.
    expect(error.message).toMatch(/\b(ask|use)\b/i);
  });
});
