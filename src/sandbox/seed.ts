import {
  BUILTIN_TENANT_ROLES,
  ORG_ADMIN,
  SUBSCRIPTION_TIERS,
  type SubscriptionTier,
} from '../api/constants.js';
import { isoSeconds } from '../api/time.js';
import { recordGrant } from './domain/grants.js';
import { stableUuid } from './domain/identity.js';
import type { SandboxState } from './state.js';

export const DEMO_ORG = 'org_demo';
export const OTHER_ORG = 'org_other';
/** The seeded administrator: tenant_admin of every demo tenant and org_admin of org_demo. */
export const ADMIN_USER = 'usr_admin';

interface TenantSeed {
  slug: string;
  name: string;
  tier: SubscriptionTier;
  currency: string;
  zone: string;
  created: string;
  org: string;
}

export const DEMO_TENANTS: TenantSeed[] = [
  {
    slug: 'acme-treasury',
    name: 'Acme Treasury',
    tier: 'enterprise',
    currency: 'USD',
    zone: 'America/New_York',
    created: '2024-01-15T09:00:00Z',
    org: DEMO_ORG,
  },
  {
    slug: 'acme-payments-eu',
    name: 'Acme Payments EU',
    tier: 'pro',
    currency: 'EUR',
    zone: 'Europe/Berlin',
    created: '2024-02-20T10:30:00Z',
    org: DEMO_ORG,
  },
  {
    slug: 'acme-ledger-uk',
    name: 'Acme Ledger UK',
    tier: 'free',
    currency: 'GBP',
    zone: 'Europe/London',
    created: '2024-03-05T08:15:00Z',
    org: DEMO_ORG,
  },
  {
    slug: 'acme-apac',
    name: 'Acme APAC',
    tier: 'pro',
    currency: 'JPY',
    zone: 'Asia/Tokyo',
    created: '2024-04-10T01:00:00Z',
    org: DEMO_ORG,
  },
  {
    slug: 'acme-labs',
    name: 'Acme Labs',
    tier: 'free',
    currency: 'USD',
    zone: 'America/Los_Angeles',
    created: '2024-05-01T16:45:00Z',
    org: DEMO_ORG,
  },
  {
    slug: 'wayne-clearing',
    name: 'Wayne Clearing',
    tier: 'enterprise',
    currency: 'USD',
    zone: 'America/Chicago',
    created: '2024-02-01T12:00:00Z',
    org: OTHER_ORG,
  },
];

export function tenantId(slug: string): string {
  return stableUuid(`tenant:${slug}`);
}

/** The first demo tenant, where one user per built-in role lives. */
export const PRIMARY_TENANT_SLUG = 'acme-treasury';

const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'SGD'];
const ZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Europe/London',
  'Asia/Tokyo',
  'Europe/Zurich',
  'Asia/Singapore',
];

/**
 * Demo data: two organisations, six tenants of every tier, an administrator, and one user per
 * built-in role in Acme Treasury (usr_analyst, usr_lead, …). `extraTenants` adds generated
 * tenants to org_demo (for benchmarks); only an org_admin sees them. `extraUsers` adds generated
 * users without roles to org_demo (bulk role grants, benchmarks).
 */
export function seedDemo(state: SandboxState, extraTenants = 0, extraUsers = 0): void {
  const { identity } = state;
  identity.addOrg({ id: DEMO_ORG, name: 'Acme Group' });
  identity.addOrg({ id: OTHER_ORG, name: 'Wayne Holdings' });
  for (const t of DEMO_TENANTS) {
    identity.addTenant({
      id: tenantId(t.slug),
      slug: t.slug,
      display_name: t.name,
      default_currency: t.currency,
      time_zone: t.zone,
      created_at: t.created,
      subscription_tier: t.tier,
      org_id: t.org,
    });
  }
  const grant = (user: string, slug: string, role: string) =>
    recordGrant(state, {
      user_id: user,
      tenant_id: tenantId(slug),
      role_id: role,
      role_name: role,
      assigned_by: 'system',
      assigned_at: '2024-06-01T00:00:00Z',
      expires_at: null,
      justification: null,
      request_id: 'seed',
    });

  identity.addUser({
    id: ADMIN_USER,
    name: 'Ada Admin',
    email: 'ada@acme.example',
    org_id: DEMO_ORG,
    org_role: ORG_ADMIN,
  });
  for (const t of DEMO_TENANTS.filter((t) => t.org === DEMO_ORG)) grant(ADMIN_USER, t.slug, 'tenant_admin');

  for (const role of BUILTIN_TENANT_ROLES.filter((r) => r !== 'tenant_admin')) {
    const short = role.replace(/^tenant_/, '');
    const id = `usr_${short}`;
    const name = `${short[0]!.toUpperCase()}${short.slice(1).replace(/_/g, ' ')} User`;
    identity.addUser({
      id,
      name,
      email: `${short.replace(/_/g, '.')}@acme.example`,
      org_id: DEMO_ORG,
      org_role: null,
    });
    grant(id, PRIMARY_TENANT_SLUG, role);
  }
  // The viewer also belongs to a second tenant, so multi-tenant tokens are easy to test.
  grant('usr_viewer', 'acme-ledger-uk', 'tenant_viewer');

  identity.addUser({
    id: 'usr_bruce',
    name: 'Bruce Wayne',
    email: 'bruce@wayne.example',
    org_id: OTHER_ORG,
    org_role: ORG_ADMIN,
  });
  grant('usr_bruce', 'wayne-clearing', 'tenant_admin');

  const base = Date.parse('2025-01-01T00:00:00Z');
  for (let i = 1; i <= extraTenants; i++) {
    const n = String(i).padStart(6, '0');
    identity.addTenant({
      id: stableUuid(`tenant:bulk-${n}`),
      slug: `bulk-${n}`,
      display_name: `Bulk Tenant ${n}`,
      default_currency: CURRENCIES[i % CURRENCIES.length]!,
      time_zone: ZONES[i % ZONES.length]!,
      created_at: isoSeconds(base + i * 1000),
      subscription_tier: SUBSCRIPTION_TIERS[i % SUBSCRIPTION_TIERS.length]!,
      org_id: DEMO_ORG,
    });
  }
  for (let i = 1; i <= extraUsers; i++) identity.addUser(bulkUser(i));
}

/** Generated user number `i` (1-based) of `--users N`: usr_bulk_000001, … in org_demo, without roles. */
export function bulkUser(i: number): {
  id: string;
  name: string;
  email: string;
  org_id: string;
  org_role: null;
} {
  const n = String(i).padStart(6, '0');
  return {
    id: `usr_bulk_${n}`,
    name: `Bulk User ${n}`,
    email: `bulk.${n}@acme.example`,
    org_id: DEMO_ORG,
    org_role: null,
  };
}
