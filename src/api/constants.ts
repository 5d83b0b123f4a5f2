/**
 * Plain values shared by the CLI and the sandbox. Kept free of schema code so the CLI bundle
 * does not load TypeBox.
 */

export const SUBSCRIPTION_TIERS = ['free', 'pro', 'enterprise'] as const;
export type SubscriptionTier = (typeof SUBSCRIPTION_TIERS)[number];

/** The reference's built-in tenant roles, highest precedence first. */
export const BUILTIN_TENANT_ROLES = [
  'tenant_admin',
  'tenant_reviewer',
  'tenant_lead',
  'tenant_analyst',
  'tenant_rule_author',
  'tenant_ai_prompter',
  'tenant_compliance',
  'tenant_auditor',
  'tenant_viewer',
] as const;

/** The organisation-level role that grants cross-tenant listing. */
export const ORG_ADMIN = 'org_admin';

export const TENANT_PAGE = { min: 1, max: 200, default: 50 } as const;

/** Headers of the reference. */
export const HEADERS = {
  tenant: 'x-tenant-id',
  org: 'x-svc-org-id',
  requestId: 'x-request-id',
  signature: 'x-svc-signature',
} as const;

/** Webhook deliveries: states, list bounds, event kinds and failure causes (sandbox choices where the reference is silent). */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** `in_flight` filters pending and retrying deliveries together, as the list summary counts them. */
export const DELIVERY_STATUS_FILTERS = [...DELIVERY_STATUSES, 'in_flight'] as const;
export type DeliveryStatusFilter = (typeof DELIVERY_STATUS_FILTERS)[number];
export const DELIVERY_PAGE = { min: 1, max: 200, default: 50 } as const;

export const DLQ_STATUSES = ['queued', 'replayed', 'discarded'] as const;
export type DlqStatus = (typeof DLQ_STATUSES)[number];
export const DLQ_STATUS_FILTERS = [...DLQ_STATUSES, 'all'] as const;
export const DLQ_PAGE = { min: 1, max: 200, default: 50 } as const;

export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;

/** The event kinds the sandbox emits (the reference shows two and says the list is longer). */
export const EVENT_TYPES = [
  'exception.sla.breached',
  'exception.created',
  'exception.assigned',
  'exception.resolved',
  'reconciliation.completed',
  'reconciliation.failed',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Delivery failure causes: the reference's table, plus redirect_not_followed (a 3xx answer). */
export const DELIVERY_FAILURE_CAUSES = [
  'connection_timeout',
  'tls_handshake_failed',
  '4xx_client_error',
  '5xx_server_error',
  'payload_too_large',
  'invalid_signature',
  'redirect_not_followed',
] as const;
export type DeliveryFailureCause = (typeof DELIVERY_FAILURE_CAUSES)[number];

export const WEBHOOK_HEADERS = {
  eventId: 'x-svc-event-id',
  eventType: 'x-svc-event-type',
  deliveryId: 'x-svc-delivery-id',
  attempt: 'x-svc-delivery-attempt',
} as const;
