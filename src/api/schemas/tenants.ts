import { type Static, Type } from '@sinclair/typebox';
import { SUBSCRIPTION_TIERS, TENANT_PAGE } from '../constants.js';
import { CursorQuery, Page, StringEnum, Timestamp } from './common.js';

export const SubscriptionTier = StringEnum(SUBSCRIPTION_TIERS, {
  description: 'One of free, pro, enterprise',
});

export const TenantSummary = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Tenant identifier' }),
    slug: Type.String({ description: 'URL-safe short name' }),
    display_name: Type.String(),
    default_currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code', examples: ['USD'] }),
    time_zone: Type.String({ description: 'IANA time zone name' }),
    role: Type.String({
      description:
        "The caller's role within the tenant: the highest of its live roles there (built-in roles ranked as in the reference's catalog, tenant_admin first, then custom roles), or org_admin for a tenant listed only through org_admin. The role filter compares every live role, not only this one.",
    }),
    created_at: Timestamp,
    subscription_tier: SubscriptionTier,
  },
  { $id: 'TenantSummary', additionalProperties: true },
);
export type TenantSummary = Static<typeof TenantSummary>;

export const TenantList = Page(
  Type.Ref('TenantSummary'),
  'Tenants in a stable order (created_at, then id). next_cursor is null on the last page.',
);
export type TenantList = { items: TenantSummary[]; next_cursor: string | null };

export const TenantListQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: TENANT_PAGE.min,
      maximum: TENANT_PAGE.max,
      default: TENANT_PAGE.default,
      description: 'Page size, 1 to 200 (default 50)',
    }),
  ),
  ...CursorQuery,
  role: Type.Optional(
    Type.String({
      description:
        "Only tenants where the caller holds this role live: a built-in role's id, a custom role's name (exactly), " +
        "or org_admin (the tenants listed only through org_admin). Any of the caller's live roles in the tenant matches, " +
        'not only the one the role column shows.',
    }),
  ),
  subscription_tier: Type.Optional(SubscriptionTier),
});
export type TenantListQuery = Static<typeof TenantListQuery>;
