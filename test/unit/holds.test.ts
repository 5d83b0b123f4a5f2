import { describe, expect, it } from 'vitest';
import {
  authorityFrom,
  CallerAuthority,
  thirdPartyClientOf,
  usersOnlyRefusal,
} from '../../src/api/caller-authority.js';
import { CHANNEL_CHOICE } from '../../src/api/channel-holds.js';
import { CLIENT_REACH, clientArming } from '../../src/api/client-reach.js';
import { heldUntil } from '../../src/api/holds.js';
import { scopePermissions } from '../../src/api/operations.js';
import { TENANT_PERMISSIONS } from '../../src/api/permissions.js';
import { HANDS_OUT } from '../../src/api/standing-credentials.js';

// The rule both the sandbox and svc's predictions apply (src/api/holds.ts), on its own: the
// cases the in-process tests of the dry runs and plans do not reach (API keys, narrowing).
const HOUR = '2030-01-01T01:00:00Z';
const LATER = '2030-01-01T09:00:00Z';

describe('heldUntil', () => {
  it('is the earliest, over the permissions, of the latest grant holding each; never ended: null', () => {
    const grants = [
      { permissions: ['role.assign', 'rule.read'], expiresAt: HOUR },
      { permissions: ['rule.read'], expiresAt: LATER },
    ];
    expect(heldUntil(grants, ['rule.read'])).toBe(Date.parse(LATER));
    expect(heldUntil(grants, ['rule.read', 'role.assign'])).toBe(Date.parse(HOUR));
    expect(heldUntil([...grants, { permissions: ['rule'], expiresAt: null }], ['rule.read'])).toBeNull();
  });
});

describe('CallerAuthority', () => {
  const viewer = { name: 'tenant_viewer', permissions: ['account.read', 'exception.read'] };
  const minter = { name: 'keys', permissions: ['api_key.manage'] };

  it('an API key (its role lasts until revoked) may not grant a role that mints keys: user_required', () => {
    const key = new CallerAuthority(
      'acme',
      [{ permissions: ['role.assign', 'api_key.manage'], expiresAt: null }],
      false,
    );
    expect(key.grant(minter, LATER)?.code).toBe('user_required');
    expect(key.grant(minter, LATER, HOUR)?.message).toBe(
      'API keys cannot change the expiry of keys: it carries api_key.manage, and keys cannot mint keys; a person must do it',
    );
    expect(key.grant(minter, null)).toBeDefined();
  });

  it('without role.assign at all the operation itself is refused (insufficient_role), before what it hands out', () => {
    const reader = new CallerAuthority('acme', [{ permissions: ['role.read'], expiresAt: null }], true);
    expect(reader.grant(viewer, null)).toEqual({
      code: 'insufficient_role',
      message:
        'granting a role needs permission role.assign in acme, which your live roles there do not grant; ask an administrator of acme',
    });
  });

  it('moving an expiry sooner hands out nothing; later than the hold is refused', () => {
    const jit = new CallerAuthority(
      'acme',
      [{ permissions: ['role.assign', 'account.read', 'exception.read'], expiresAt: HOUR }],
      true,
    );
    expect(jit.grant(viewer, '2030-01-01T00:30:00Z', null)).toBeUndefined();
    expect(jit.grant(viewer, LATER, '2030-01-01T00:30:00Z')?.code).toBe('insufficient_permission');
    expect(jit.grant(viewer, LATER, '2030-01-02T00:00:00Z')).toBeUndefined();
  });

  it('a custom role change needs what it adds and all it carries; a deletion all of it', () => {
    const manager = new CallerAuthority(
      'acme',
      [{ permissions: ['role.manage', 'rule.read'], expiresAt: null }],
      true,
    );
    expect(manager.role('ops', ['rule.read'], ['rule.read'])).toBeUndefined();
    expect(manager.role('ops', ['rule.read', 'rule.write'], ['rule.read'])?.message).toBe(
      'you can only change a role whose permissions you all hold yourself; you lack rule.write; have someone who holds them change ops',
    );
    // A rename or a new description too (s15 F5): after === before.
    expect(manager.role('ops', ['rule.read', 'rule.write'], ['rule.read', 'rule.write'])?.message).toMatch(
      /^you can only change a role whose permissions you all hold yourself; you lack rule\.write/,
    );
    expect(manager.role('ops', ['rule.write'], null)?.message).toMatch(
      /^you can only delete a role whose permissions/,
    );
  });

  it('authorityFrom predicts nothing when a held role’s permissions are not known', () => {
    expect(authorityFrom('acme', true, [{ role: 'gone', expiresAt: null }], () => undefined)).toBeUndefined();
  });
});

describe('CallerAuthority.integration with a webhook channel (escalate13 F1)', () => {
  const manager = { permissions: ['webhook.manage', 'webhook.read'], expiresAt: null };
  const channel = { what: CHANNEL_CHOICE.create, kinds: ['exception.created', 'webhook.test'] };

  it('webhook.manage alone may choose webhook.test only; exception kinds take exception.read', () => {
    const caller = new CallerAuthority('acme', [manager], true);
    expect(
      caller.integration('webhook', { what: CHANNEL_CHOICE.create, kinds: ['webhook.test'] }),
    ).toBeUndefined();
    expect(caller.integration('webhook', channel)).toEqual({
      code: 'insufficient_permission',
      message:
        'creating a webhook sends event data to its URL, so it takes the permission that reads that data; you lack exception.read (exception.created): have someone who holds it do it',
    });
  });

  it('a read permission held until some time is not enough: a webhook is a standing channel', () => {
    const jit = new CallerAuthority(
      'acme',
      [manager, { permissions: ['exception.read'], expiresAt: HOUR }],
      true,
    );
    expect(jit.integration('webhook', channel)?.message).toBe(
      'a webhook is a standing channel, like an API key: creating a webhook takes the permission that reads its data held without an end date, and you hold exception.read (exception.created) only until 2030-01-01T01:00:00Z; have someone who holds it without an end date do it',
    );
    const permanent = new CallerAuthority(
      'acme',
      [manager, { permissions: ['exception.read'], expiresAt: null }],
      true,
    );
    expect(permanent.integration('webhook', channel)).toBeUndefined();
  });
});

describe('OAuth client reach (escalate13 F6)', () => {
  it('scopePermissions: admin reaches every tenant permission (not tenant.read, of the organisation), a read scope its read permission, read:tenants none', () => {
    expect(scopePermissions(['admin'])).toEqual([...TENANT_PERMISSIONS].sort());
    expect(scopePermissions(['admin'])).not.toContain('tenant.read');
    expect(scopePermissions(['read:exceptions', 'read:reconciliations'])).toEqual([
      'exception.read',
      'reconciliation.read',
    ]);
    expect(scopePermissions(['read:tenants'])).toEqual([]);
  });

  it('clientArming: a creation arms every scope; an update the scopes added, and all of them with a new redirect URI', () => {
    const before = { scopes: ['read:exceptions'], redirect_uris: ['https://a.example/cb'] };
    expect(clientArming(null, before)).toEqual([
      { what: CLIENT_REACH.create, scopes: ['read:exceptions'], standing: HANDS_OUT.clientCreate },
    ]);
    expect(clientArming(before, { ...before, scopes: ['read:exceptions', 'admin'] })).toEqual([
      { what: CLIENT_REACH.scopes, scopes: ['admin'] },
    ]);
    const repointed = { scopes: ['read:tenants', 'read:exceptions'], redirect_uris: ['http://127.0.0.1/cb'] };
    expect(clientArming(before, repointed)).toEqual([
      { what: CLIENT_REACH.scopes, scopes: ['read:tenants'] },
      {
        what: CLIENT_REACH.redirect,
        scopes: ['read:tenants', 'read:exceptions'],
        standing: HANDS_OUT.clientRedirect,
      },
    ]);
    expect(clientArming(before, { scopes: [], redirect_uris: [] })).toEqual([]);
  });

  it('CallerAuthority.integration judges each arming in order; the first lacking one is the refusal', () => {
    const caller = new CallerAuthority(
      'acme',
      [{ permissions: ['oauth_client.manage'], expiresAt: null }],
      true,
    );
    expect(
      caller.integration('oauth_client', undefined, [
        { what: CLIENT_REACH.create, scopes: ['read:tenants'] },
      ]),
    ).toBeUndefined();
    expect(
      caller.integration('oauth_client', undefined, [
        { what: CLIENT_REACH.rotate, scopes: ['read:tenants', 'read:exceptions'] },
      ]),
    ).toEqual({
      code: 'insufficient_permission',
      message:
        "rotating an OAuth client's secret hands out what its scopes reach, so it takes the permissions they cover; you lack those of read:exceptions (exception.read); have someone who holds it do it",
    });
  });

  // Review 16d D3: a just-in-time oauth_client.manage holder was refused a rotation but created a
  // twin client (its secret handed out) or re-pointed one: svc plan predicted both would pass.
  it('CallerAuthority.integration: creating a client or re-pointing one takes oauth_client.manage held without an end date, whatever the scopes reach', () => {
    const caller = new CallerAuthority(
      'acme',
      [{ permissions: ['oauth_client.manage'], expiresAt: '2026-11-25T09:00:00Z' }],
      true,
    );
    const client = { scopes: ['read:tenants'], redirect_uris: ['https://a.example/cb'] };
    const standing = (what: string) => ({
      code: 'insufficient_permission',
      message: `an OAuth client's secret is a standing credential, like an API key: ${what} takes oauth_client.manage held without an end date, and you hold it only until 2026-11-25T09:00:00Z; have someone who holds it without an end date do it`,
    });
    expect(caller.integration('oauth_client', undefined, clientArming(null, client))).toEqual(
      standing(HANDS_OUT.clientCreate),
    );
    expect(
      caller.integration(
        'oauth_client',
        undefined,
        clientArming(client, { ...client, redirect_uris: ['https://evil.example/cb'] }),
      ),
    ).toEqual(standing(HANDS_OUT.clientRedirect));
    expect(
      caller.integration('oauth_client', undefined, clientArming(client, { ...client, redirect_uris: [] })),
    ).toBeUndefined();
  });

  it('CallerAuthority.integration wants the reach held without an end date (a client outlasts a just-in-time grant), as svc plan predicts', () => {
    const caller = new CallerAuthority(
      'acme',
      [
        { permissions: ['oauth_client.manage', 'reconciliation.read'], expiresAt: null },
        { permissions: ['exception.read', 'reconciliation.read'], expiresAt: '2026-11-25T09:00:00Z' },
      ],
      true,
    );
    // reconciliation.read is held for good through the first grant; exception.read only until 09:00.
    const arming = (scopes: string[]) => [{ what: CLIENT_REACH.scopes, scopes }];
    expect(caller.integration('oauth_client', undefined, arming(['read:reconciliations']))).toBeUndefined();
    expect(
      caller.integration('oauth_client', undefined, arming(['read:reconciliations', 'read:exceptions'])),
    ).toEqual({
      code: 'insufficient_permission',
      message:
        'putting scopes into an OAuth client hands out what they reach, which outlasts a just-in-time grant, so it takes the permissions they cover held without an end date; you hold those of read:exceptions (exception.read) only until 2026-11-25T09:00:00Z; have someone who holds it without an end date do it',
    });
  });
});

// Session 18: svc predicts the users-only refusal (user_required) for a third-party OAuth client's
// token from what GET /v1/me says (credential.third_party and client_id), and from a server that
// says less, nothing: the platform's own answer is reported then.
describe('thirdPartyClientOf and the users-only rule', () => {
  it.each<[string, Record<string, unknown>, string | null]>([
    ['a third-party token', { type: 'user', credential: { third_party: true, client_id: 'cli_1' } }, 'cli_1'],
    ["svc-cli's own login", { type: 'user', credential: { third_party: false, client_id: 'svc-cli' } }, null],
    ['a server that does not say', { type: 'user', credential: { client_id: 'cli_1' } }, null],
    ['third_party null', { type: 'user', credential: { third_party: null, client_id: 'cli_1' } }, null],
    ['no client id', { type: 'user', credential: { third_party: true } }, null],
    ['no credential', { type: 'user' }, null],
    ['an API key', { type: 'api_key', credential: { third_party: true, client_id: 'cli_1' } }, null],
  ])('%s: %j', (_, me, client) => {
    expect(thirdPartyClientOf(me as never)).toBe(client);
  });

  it('refuses a users-only operation to a key and to a third-party token, naming the client; a person may', () => {
    expect(usersOnlyRefusal('oauth_clients_create', true, null)).toBeUndefined();
    expect(usersOnlyRefusal('oauth_clients_delete', true, 'cli_1')).toBeUndefined();
    expect(usersOnlyRefusal('webhooks_rotate_secret', false, null)?.code).toBe('user_required');
    expect(usersOnlyRefusal('webhooks_rotate_secret', true, 'cli_1')).toEqual({
      code: 'user_required',
      message:
        "rotating the secret of a webhook is for users themselves, not an OAuth client acting for one (this token is cli_1's): a webhook's new signing secret would outlive the client; ask the user to do it with their own login",
    });
    const authority = authorityFrom(
      'acme',
      true,
      [{ role: 'admin', expiresAt: null }],
      () => TENANT_PERMISSIONS,
      'cli_1',
    );
    expect(authority?.users('oauth_clients_update')?.code).toBe('user_required');
  });
});
