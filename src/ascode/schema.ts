import { SHOWS_SOMETHING_PATTERN } from '../api/characters.js';
import { EVENT_TYPES, OAUTH_GRANT_TYPES, OAUTH_LIMITS, OAUTH_SCOPES } from '../api/constants.js';
import { DURATION_PATTERN, MAX_DURATION_DAYS } from '../api/expiry.js';
import {
  JUSTIFICATION_MAX,
  PERMISSION_PATTERN,
  RESERVED_ROLE_PREFIXES,
  ROLE_NAME_PATTERN,
} from '../api/roles.js';

/**
 * The JSON Schema (draft 2020-12) of an svc access file: the one description of the file's
 * shape. `npm run generate` writes it to docs/svc-config.schema.json for editors, and svc checks
 * files against it itself (./shape.ts) so every problem gets a `file:line` and a suggestion.
 * What a schema cannot say (durations, times in the future, URLs, permissions of the platform's
 * catalog, users and tenants that exist) is checked afterwards (./entries.ts, ./references.ts).
 *
 * The rules svc words itself afterwards are in the schema too, wherever JSON Schema can say them
 * (review s13, ascode F1: a schema lint in CI passed files svc plan refuses), each under `allOf`
 * (or `contains`), which ./shape.ts does not walk: its messages come from entries.ts. One rule is
 * not expressible (no keyword compares two fields): refresh_token_lifetime_seconds at least
 * token_lifetime_seconds, said in its description.
 */

export const MANAGE_KINDS = ['roles', 'grants', 'webhooks', 'oauth_clients'] as const;
export type ManagedKind = (typeof MANAGE_KINDS)[number];

const text = (description: string, extra: Record<string, unknown> = {}) => ({
  type: 'string',
  description,
  ...extra,
});
const list = (items: object, description: string, extra: Record<string, unknown> = {}) => ({
  type: 'array',
  items,
  description,
  ...extra,
});
/** Refused by svc afterwards in its own words (entries.ts); here for other validators. */
const alsoRefused = (...rules: object[]) => ({
  allOf: rules,
  $comment: 'svc refuses these too, with its own message (not walked by svc itself)',
});
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A regex alternative of the whole numbers above n, leading zeros allowed: above(365) matches 366, 1000. */
function above(n: number): string {
  const digits = String(n);
  const options = [`[1-9]\\d{${digits.length},}`];
  for (let i = 0; i < digits.length; i++) {
    const d = Number(digits[i]);
    if (d === 9) continue;
    const rest = digits.length - i - 1;
    options.push(`${digits.slice(0, i)}[${d + 1}-9]${rest > 0 ? `\\d{${rest}}` : ''}`);
  }
  return `0*(${options.join('|')})`;
}
const DAYS = MAX_DURATION_DAYS;
/** A duration svc refuses by its length: zero, or longer than MAX_DURATION_DAYS. */
const DURATION_ZERO = '^\\s*0+\\s*[mhdHD]\\s*$';
const DURATION_TOO_LONG = `^\\s*(${above(DAYS)}\\s*[dD]|${above(DAYS * 24)}\\s*[hH]|${above(DAYS * 24 * 60)}\\s*m)\\s*$`;
/** `scheme://user@` or `scheme://user:password@`. */
const USER_INFO = '^[^:/?#]+://[^/?#]*@';
const HTTP_SCHEME = '^[hH][tT][tT][pP][sS]?://';
const LOOPBACK_HTTP =
  '^[hH][tT][tT][pP]://([lL][oO][cC][aA][lL][hH][oO][sS][tT]|127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}|\\[::1\\])(:\\d*)?([/?#]|$)';

const set = (values: readonly string[], description: string) =>
  list({ type: 'string', enum: [...values] }, description, { minItems: 1, uniqueItems: true });

const ROLE = {
  type: 'object',
  description: 'A custom role of the tenant. Identity: its name.',
  required: ['name', 'permissions'],
  additionalProperties: false,
  properties: {
    name: text(
      'Lowercase letters, digits, _ and -; tenant_, org_, tenant- and org- are kept for built-in roles, id prefixes (role_, usr_, key_, …) for ids',
      {
        pattern: ROLE_NAME_PATTERN,
        ...alsoRefused({
          not: { pattern: `^(${RESERVED_ROLE_PREFIXES.map(literal).join('|')})` },
        }),
      },
    ),
    description: text('Left as it is when absent', { maxLength: 500 }),
    permissions: list(
      {
        type: 'string',
        pattern: PERMISSION_PATTERN,
        description: 'a dotted lowercase identifier, e.g. exception.read',
      },
      "Permissions from the platform's catalog (svc roles permissions); the order does not matter",
      { minItems: 1, maxItems: 100, uniqueItems: true },
    ),
  },
};

const GRANT = {
  type: 'object',
  description:
    'A role held by a user (user) or by several users alike (users). Identity: the user and the role. ' +
    'Without expires_at or expires_in the grant is permanent.',
  required: ['role'],
  additionalProperties: false,
  oneOf: [{ required: ['user'] }, { required: ['users'] }],
  not: { required: ['expires_at', 'expires_in'] },
  properties: {
    user: text('A user id (usr_…)', { minLength: 1 }),
    users: list({ type: 'string', minLength: 1 }, 'User ids that hold the role alike', {
      minItems: 1,
      uniqueItems: true,
    }),
    role: text('A built-in role (tenant_analyst, …) or a custom role, by name', { minLength: 1 }),
    expires_at: text('When the grant ends: an ISO 8601 time with a zone, in the future (no leap second)', {
      format: 'date-time',
      // RFC 3339 allows second 60; the platform does not take a leap second.
      ...alsoRefused({ not: { pattern: '^\\d{4}-\\d\\d-\\d\\d[Tt ]\\d\\d:\\d\\d:60' } }),
    }),
    expires_in: text(
      'A duration (30m, 8h, 7d; m minutes, h hours, d days; at most 365d) or never: how long a new grant lasts',
      {
        pattern: DURATION_PATTERN,
        allOf: [{ not: { pattern: DURATION_ZERO } }, { not: { pattern: DURATION_TOO_LONG } }],
        $comment:
          'Checked by svc with the parser of --expires-in (M is refused: minutes or months?; zero and more than 365 days too). An existing grant that ends within it is left as it is; one that ends later, or never, is shortened to it.',
      },
    ),
    justification: text('Why (kept in the audit trail); needed when an expiry is changed', {
      minLength: 1,
      maxLength: JUSTIFICATION_MAX,
      ...alsoRefused({ pattern: SHOWS_SOMETHING_PATTERN }),
    }),
  },
};

const WEBHOOK = {
  type: 'object',
  description:
    'A webhook subscription. Identity: its URL within the tenant, or its id when given (export writes ids only when two webhooks share a URL). The signing secret of a new one goes to svc apply --secret-dir.',
  required: ['url', 'event_types'],
  additionalProperties: false,
  properties: {
    id: text('A live webhook (wh_…) this entry is, so its URL can change; only in a block of one tenant', {
      pattern: '^wh_',
    }),
    url: text('The http or https URL deliveries go to, without a user or password', {
      format: 'uri',
      ...alsoRefused({ pattern: HTTP_SCHEME }, { not: { pattern: USER_INFO } }),
    }),
    event_types: set(EVENT_TYPES, 'The event kinds delivered to it'),
    description: text('Left as it is when absent', { maxLength: 500 }),
    status: { type: 'string', enum: ['enabled', 'disabled'], description: 'Left as it is when absent' },
    max_attempts: { type: 'integer', minimum: 1, maximum: 20, description: 'Left as it is when absent' },
  },
};

const { tokenLifetime, refreshTokenLifetime } = OAUTH_LIMITS;
const OAUTH_CLIENT = {
  type: 'object',
  description:
    'An OAuth client of the tenant. Identity: its name within the tenant, or its client_id when given. The secret of a new one goes to svc apply --secret-dir.',
  required: ['name', 'redirect_uris', 'scopes'],
  additionalProperties: false,
  properties: {
    client_id: text('A live client this entry is, so it can be renamed; only in a block of one tenant', {
      minLength: 1,
    }),
    name: text('Display name', { minLength: 1, maxLength: OAUTH_LIMITS.name.max }),
    description: text('Left as it is when absent', { maxLength: OAUTH_LIMITS.description.max }),
    redirect_uris: list(
      {
        type: 'string',
        format: 'uri',
        ...alsoRefused(
          { pattern: HTTP_SCHEME },
          // http only on a loopback host: not http, or http to one.
          { anyOf: [{ not: { pattern: '^[hH][tT][tT][pP]:' } }, { pattern: LOOPBACK_HTTP }] },
          { not: { pattern: USER_INFO } },
          { not: { pattern: '#' } },
          { not: { pattern: '^[^:/?#]+://[^/?#]*\\*' } },
        ),
      },
      'Absolute https URIs (http only on loopback hosts), no fragment, no wildcard host; each once (compared as WHATWG URL writes them)',
      { minItems: 1, maxItems: OAUTH_LIMITS.redirectUris.max, uniqueItems: true },
    ),
    grant_types: {
      ...set(
        OAUTH_GRANT_TYPES,
        'Left as it is when absent (both on creation); refresh_token needs authorization_code',
      ),
      contains: { const: 'authorization_code' },
    },
    scopes: set(Object.keys(OAUTH_SCOPES), 'The scopes the client may ask for'),
    token_lifetime_seconds: {
      type: 'integer',
      minimum: tokenLifetime.min,
      maximum: tokenLifetime.max,
      description: `Access token lifetime (default ${tokenLifetime.default} on creation)`,
    },
    refresh_token_lifetime_seconds: {
      type: 'integer',
      minimum: refreshTokenLifetime.min,
      maximum: refreshTokenLifetime.max,
      description: `Refresh token lifetime (default ${refreshTokenLifetime.default} on creation), at least token_lifetime_seconds`,
    },
    pkce_required: { type: 'boolean', description: 'Left as it is when absent (true on creation)' },
  },
};

const TENANT_REF = text('A tenant, by slug or id', { minLength: 1 });

const BLOCK = {
  type: 'object',
  description:
    'What some tenants should have. Several blocks may name the same tenant; what they declare adds up.',
  required: ['tenants'],
  additionalProperties: false,
  properties: {
    tenants: {
      description: 'One tenant, a list of them, or all: every tenant where you are tenant_admin',
      anyOf: [
        { const: 'all' },
        TENANT_REF,
        list(TENANT_REF, 'Tenants by slug or id', { minItems: 1, uniqueItems: true }),
      ],
    },
    roles: list({ $ref: '#/$defs/role' }, 'Custom roles'),
    grants: list({ $ref: '#/$defs/grant' }, 'Role grants'),
    webhooks: list({ $ref: '#/$defs/webhook' }, 'Webhook subscriptions'),
    oauth_clients: list({ $ref: '#/$defs/oauth_client' }, 'OAuth clients'),
  },
};

const scope = (kind: string, values: readonly string[], meaning: string) => ({
  type: 'string',
  enum: [...values],
  description: `What svc apply --prune may remove of ${kind}: ${meaning} (default none)`,
});

export const CONFIG_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'svc-config.schema.json',
  title: 'svc access and configuration file',
  description:
    'Custom roles, role grants, webhooks and OAuth clients per tenant, for svc plan and svc apply. Secrets are never in it.',
  type: 'object',
  required: ['version', 'blocks'],
  additionalProperties: false,
  properties: {
    $schema: text('Where editors find this schema (ignored by svc)'),
    version: { const: 1, description: 'The format version: 1' },
    manage: {
      type: 'object',
      description:
        'What this file manages in the tenants it names: what it does not declare there is removed by svc apply --prune. Nothing is removed otherwise.',
      additionalProperties: false,
      properties: {
        roles: scope('custom roles', ['all', 'none'], 'all: every custom role the file does not declare'),
        grants: scope(
          'role grants',
          ['all', 'listed-roles', 'none'],
          'all: every grant the file does not declare; listed-roles: only grants of roles the file names in that tenant',
        ),
        webhooks: scope('webhooks', ['all', 'none'], 'all: every webhook the file does not declare'),
        oauth_clients: scope(
          'OAuth clients',
          ['all', 'none'],
          'all: every OAuth client the file does not declare',
        ),
      },
    },
    blocks: list({ $ref: '#/$defs/block' }, 'What the tenants should have'),
  },
  $defs: { block: BLOCK, role: ROLE, grant: GRANT, webhook: WEBHOOK, oauth_client: OAUTH_CLIENT },
} as const;

/** docs/svc-config.schema.json, as `npm run generate` writes it. */
export function configSchemaText(): string {
  return `${JSON.stringify(CONFIG_SCHEMA, null, 2)}\n`;
}
