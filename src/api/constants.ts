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

/** Bounds of API key fields in the sandbox (the reference leaves them "not shown"). */
export const API_KEY_LIMITS = {
  name: { max: 100 },
  /** A service-role key's justification: it must say why. */
  justification: { min: 10, max: 500 },
} as const;

/** Headers of the reference. */
export const HEADERS = {
  tenant: 'x-tenant-id',
  org: 'x-svc-org-id',
  requestId: 'x-request-id',
  signature: 'x-svc-signature',
} as const;

/** How long a name of the generic record surface may be, in characters. */
export const SURFACE_LENGTH = { min: 2, max: 63 } as const;

/** Names of the generic record surface (/v1/{surface}). */
export const SURFACE_PATTERN = new RegExp(
  `^[a-z][a-z0-9_]{${SURFACE_LENGTH.min - 1},${SURFACE_LENGTH.max - 1}}$`,
);

/** Path segments under /v1 that belong to other resources, never to the generic surface. */
export const RESERVED_SURFACES = [
  'me',
  'tenants',
  'roles',
  'users',
  'webhooks',
  'oauth',
  'api_keys',
  'permissions',
] as const;

/** Fields of a record that the platform owns; everything else in a record is the caller's data. */
export const RECORD_OWNED_FIELDS = [
  'id',
  'surface',
  'tenant_id',
  'created_at',
  'updated_at',
  'created_by',
  'soft_delete',
  'deleted_at',
  'purge_at',
] as const;

/**
 * svc's own OAuth client (`svc sandbox start` seeds it, a profile's client_id names it): a public
 * client (RFC 8252, PKCE, no secret), so svc never sends it a client secret (auth/client-secret.ts).
 */
export const SVC_PUBLIC_CLIENT_ID = 'svc-cli';

/**
 * OAuth 2.0: the paths of the reference (authorize, relative to {app_url}; token, to {base_url}),
 * and the sandbox's RFC 7009 revocation endpoint and RFC 8414 metadata, relative to {base_url}.
 */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/v1/oauth/token',
  revoke: '/v1/oauth/revoke',
  metadata: '/.well-known/oauth-authorization-server',
  /** RFC 8628: where a device (a terminal over SSH) asks for a user code… */
  deviceAuthorization: '/v1/oauth/device_authorization',
  /** …and the page, relative to {app_url}, where the user enters it on any browser. */
  deviceVerification: '/oauth/device',
} as const;

/** RFC 8628 §3.4: the grant type a device polls the token endpoint with. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export const OAUTH_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
export type OAuthGrantType = (typeof OAUTH_GRANT_TYPES)[number];

/** The scope that stands for everything the user's roles allow (first-party tools such as svc). */
export const OAUTH_FULL_ACCESS_SCOPE = 'admin';

/**
 * The sandbox's scope catalog (the reference shows two scopes and says the full list is "not
 * shown"). An access token works on an endpoint when it holds the endpoint's scope or `admin`;
 * endpoints that name no scope need `admin`, and GET /v1/me takes any access token.
 */
export const OAUTH_SCOPES: Readonly<Record<string, string>> = {
  'read:reconciliations': 'Read reconciliations (GET /v1/reconciliations and /v1/reconciliations/{id})',
  'read:exceptions': 'Read exceptions (GET /v1/exceptions and /v1/exceptions/{id})',
  'read:tenants': 'List the tenants you can see (GET /v1/tenants)',
  [OAUTH_FULL_ACCESS_SCOPE]:
    'Everything your roles allow, administration included (OAuth clients, roles, webhooks, record writes)',
};

/** Bounds and defaults of OAuth client fields in the sandbox (the reference leaves them "not shown"). */
export const OAUTH_LIMITS = {
  tokenLifetime: { min: 60, max: 86_400, default: 3_600 },
  refreshTokenLifetime: { min: 300, max: 31_536_000, default: 2_592_000 },
  /**
   * A token family's absolute lifetime (sandbox choice: the reference does not say): each refresh
   * token lives refresh_token_lifetime_seconds from its issue (sliding), but none beyond this many
   * seconds after the authorization that started the family (365 days).
   */
  tokenFamilyLifetimeSeconds: 31_536_000,
  /** Authorization codes live this long (RFC 6749 §4.1.2 recommends at most 10 minutes). */
  codeLifetimeSeconds: 60,
  /** How long the consent page may stay open before it must be reloaded. */
  consentLifetimeSeconds: 600,
  /** RFC 8628: a device code lives this long, and is polled at most this often (RFC default 5 s). */
  deviceCodeLifetimeSeconds: 600,
  deviceIntervalSeconds: 2,
  /**
   * RFC 8628 §5.1: user codes are short, so the verification page refuses to look any up for a
   * minute after this many wrong ones in a minute (2.56e10 codes: a guess a second finds nothing).
   */
  deviceUserCodeMissesPerMinute: 10,
  redirectUris: { max: 10, maxLength: 2_000 },
  name: { max: 100 },
  description: { max: 1_000 },
} as const;

/** Webhook deliveries: states, list bounds, event kinds and failure causes (sandbox choices where the reference is silent). */
/**
 * `recovered`: a failed delivery whose event was delivered to the same webhook since (by a replay
 * of it, or any other delivery of the event) — it reached its target after all, so it is no
 * longer counted as a failure.
 */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'failed', 'recovered'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** `in_flight` filters pending and retrying deliveries together, as the list summary counts them. */
export const DELIVERY_STATUS_FILTERS = [...DELIVERY_STATUSES, 'in_flight'] as const;
export type DeliveryStatusFilter = (typeof DELIVERY_STATUS_FILTERS)[number];
export const DELIVERY_PAGE = { min: 1, max: 200, default: 50 } as const;

/** `recovered`: the entry's event was delivered to the webhook since, by another delivery of it. */
export const DLQ_STATUSES = ['queued', 'replayed', 'discarded', 'recovered'] as const;
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

/**
 * What any event kind looks like (dot-separated lowercase words): kinds are open-ended, so a
 * filter takes any such kind, and EVENT_TYPES are only suggestions.
 */
export const EVENT_KIND = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/;

/**
 * Delivery failure causes: the reference's table, plus redirect_not_followed (a 3xx answer) and
 * webhook_stopped (no attempt: the platform stopped the webhook, its disabled_reason says why).
 */
export const DELIVERY_FAILURE_CAUSES = [
  'connection_timeout',
  'tls_handshake_failed',
  '4xx_client_error',
  '5xx_server_error',
  'payload_too_large',
  'invalid_signature',
  'redirect_not_followed',
  'webhook_stopped',
] as const;
export type DeliveryFailureCause = (typeof DELIVERY_FAILURE_CAUSES)[number];

export const WEBHOOK_HEADERS = {
  eventId: 'x-svc-event-id',
  eventType: 'x-svc-event-type',
  deliveryId: 'x-svc-delivery-id',
  attempt: 'x-svc-delivery-attempt',
} as const;

/**
 * How a sandbox-injected delivery failure's error ends (`svc sandbox target`): what the sandbox
 * writes and what svc reads to give that failure's remedy (recover the target), not the cause's.
 */
export const SANDBOX_INJECTED = 'injected by the sandbox (svc sandbox target)';
