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
        "The caller's role within the tenant: its highest active role, or org_admin for a tenant listed only through org_admin",
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
  role: Type.Optional(Type.String({ description: "Only tenants where the caller's role is this" })),
  subscription_tier: Type.Optional(SubscriptionTier),
});
export type TenantListQuery = Static<typeof TenantListQuery>;
