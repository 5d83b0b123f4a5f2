import { type Static, Type } from '@sinclair/typebox';
import { DEVICE_CODE_GRANT, OAUTH_GRANT_TYPES, OAUTH_LIMITS, OAUTH_SCOPES } from '../constants.js';
import { IdempotencyKey, NullableTimestamp, StringEnum, Timestamp } from './common.js';

const { tokenLifetime, refreshTokenLifetime } = OAUTH_LIMITS;

export const GrantType = StringEnum(OAUTH_GRANT_TYPES, {
  description:
    `authorization_code or refresh_token (the reference's). A client uses only the grants it is registered for ` +
    `(unauthorized_client otherwise); ${DEVICE_CODE_GRANT} (RFC 8628) cannot be registered by a tenant's client ` +
    "(sandbox choice): only the first-party svc-cli is registered for it, so a client's redirect URIs and PKCE are never stepped around.",
});

export const Scope = StringEnum(Object.keys(OAUTH_SCOPES), {
  description: `One of the sandbox's scopes: ${Object.entries(OAUTH_SCOPES)
    .map(([s, d]) => `${s} (${d})`)
    .join('; ')}`,
});

const clientFields = {
  client_id: Type.String({ description: 'Public identifier of the client, assigned by the service' }),
  name: Type.String({ description: 'Display name' }),
  description: Type.String({ description: 'Free text' }),
  redirect_uris: Type.Array(Type.String({ format: 'uri' }), {
    description: 'Allowed redirect targets for the authorization code',
  }),
  grant_types: Type.Array(GrantType),
  scopes: Type.Array(Type.String()),
  token_lifetime_seconds: Type.Integer({
    minimum: tokenLifetime.min,
    maximum: tokenLifetime.max,
    description: 'Access token lifetime in seconds',
  }),
  refresh_token_lifetime_seconds: Type.Integer({
    minimum: refreshTokenLifetime.min,
    maximum: refreshTokenLifetime.max,
    description: 'Refresh token lifetime in seconds',
  }),
  pkce_required: Type.Boolean({ description: 'Whether PKCE (S256) is required for the client' }),
  created_at: Timestamp,
  secret_rotated_at: NullableTimestamp,
  secret_last4: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        "The current secret's last four characters, a fingerprint that is no secret (as many platforms show); null for a public client (not in the reference: a sandbox addition, which svc uses to tell whether a rotation's stored answer still holds the current secret)",
    }),
  ),
  secret_sha256_prefix: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        "The current secret's longer fingerprint: the first 16 hex characters (lower case) of the SHA-256 of its UTF-8 bytes, no secret either; null for a public client (not in the reference: a sandbox addition, which svc prefers to secret_last4, whose four characters two secrets share once in 16.7 million)",
    }),
  ),
  tenant_id: Type.Union([Type.String(), Type.Null()], {
    description:
      'The tenant the client was created in; its tokens act only there (not in the reference; null for the first-party svc client)',
  }),
};

export const OAuthClient = Type.Object(clientFields, {
  $id: 'OAuthClient',
  additionalProperties: true,
  description: 'An OAuth client. The secret is never returned after creation (or rotation).',
});
export type OAuthClient = Static<typeof OAuthClient>;

export const OAuthClientWithSecret = Type.Object(
  {
    ...clientFields,
    client_secret: Type.String({ description: 'Returned only here; only its hash is kept' }),
    warning: Type.String({ description: 'Store the secret now: it is not shown again' }),
  },
  { additionalProperties: true },
);
export type OAuthClientWithSecret = Static<typeof OAuthClientWithSecret>;

export const OAuthClientCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: OAUTH_LIMITS.name.max }),
    description: Type.Optional(Type.String({ maxLength: OAUTH_LIMITS.description.max, default: '' })),
    redirect_uris: Type.Array(Type.String({ minLength: 1, maxLength: OAUTH_LIMITS.redirectUris.maxLength }), {
      minItems: 1,
      maxItems: OAUTH_LIMITS.redirectUris.max,
      description:
        'Absolute https URIs; http only for loopback hosts (127.0.0.1, [::1], localhost), where any port is accepted at ' +
        'authorization time (RFC 8252 §7.3). No fragment, no user info, no wildcard (`*`) in the host: each redirect ' +
        'URI is registered as it is and matched exactly. Each once, compared as WHATWG URL writes them (scheme and host ' +
        'case, a default port): a repeat, or another spelling of an earlier one, is 400 invalid_request naming both.',
    }),
    grant_types: Type.Optional(
      Type.Array(GrantType, {
        minItems: 1,
        uniqueItems: true,
        default: [...OAUTH_GRANT_TYPES],
        description: 'Default: both. refresh_token needs authorization_code.',
      }),
    ),
    scopes: Type.Array(Scope, { minItems: 1, uniqueItems: true }),
    token_lifetime_seconds: Type.Optional(
      Type.Integer({
        minimum: tokenLifetime.min,
        maximum: tokenLifetime.max,
        default: tokenLifetime.default,
        description: `${tokenLifetime.min} to ${tokenLifetime.max}, default ${tokenLifetime.default}`,
      }),
    ),
    refresh_token_lifetime_seconds: Type.Optional(
      Type.Integer({
        minimum: refreshTokenLifetime.min,
        maximum: refreshTokenLifetime.max,
        default: refreshTokenLifetime.default,
        description: `${refreshTokenLifetime.min} to ${refreshTokenLifetime.max}, default ${refreshTokenLifetime.default}; at least token_lifetime_seconds`,
      }),
    ),
    pkce_required: Type.Optional(Type.Boolean({ default: true })),
    idempotency_key: IdempotencyKey,
  },
  {
    additionalProperties: false,
    description:
      'Required: name, redirect_uris, scopes, idempotency_key (the reference does not say which fields are required).',
  },
);
export type OAuthClientCreateBody = Static<typeof OAuthClientCreateBody>;

/** The fields of a client an update may change: every registration field (checked like a new client's). */
export const OAuthClientUpdateBody = Type.Object(
  {
    name: Type.Optional(OAuthClientCreateBody.properties.name),
    description: Type.Optional(Type.String({ maxLength: OAUTH_LIMITS.description.max })),
    redirect_uris: Type.Optional(OAuthClientCreateBody.properties.redirect_uris),
    grant_types: Type.Optional(Type.Array(GrantType, { minItems: 1, uniqueItems: true })),
    scopes: Type.Optional(Type.Array(Scope, { minItems: 1, uniqueItems: true })),
    token_lifetime_seconds: Type.Optional(
      Type.Integer({ minimum: tokenLifetime.min, maximum: tokenLifetime.max }),
    ),
    refresh_token_lifetime_seconds: Type.Optional(
      Type.Integer({ minimum: refreshTokenLifetime.min, maximum: refreshTokenLifetime.max }),
    ),
    pkce_required: Type.Optional(Type.Boolean()),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'Any registration field; arrays replace the current ones. The client as changed is checked like a new one.',
  },
);
export type OAuthClientUpdateBody = Static<typeof OAuthClientUpdateBody>;

export const OAuthClientDeleted = Type.Object(
  {
    client_id: Type.String(),
    deleted: Type.Literal(true),
    deleted_at: Timestamp,
  },
  {
    additionalProperties: true,
    description: 'The client is gone: its secret and every token of it stop working',
  },
);
export type OAuthClientDeleted = Static<typeof OAuthClientDeleted>;

export const OAuthClientParams = Type.Object({ client_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const OAuthClientList = Type.Object({
  items: Type.Array(Type.Ref('OAuthClient')),
  next_cursor: Type.Null({ description: 'Always null: the list is not paged', examples: [null] }),
});

export const RotateSecretBody = Type.Object(
  { idempotency_key: IdempotencyKey },
  { additionalProperties: false },
);

/** The token endpoint's form parameters (application/x-www-form-urlencoded). */
export const TokenRequest = Type.Object(
  {
    grant_type: Type.Optional(
      Type.Union([GrantType, Type.Literal(DEVICE_CODE_GRANT)], {
        description: `authorization_code, refresh_token, or ${DEVICE_CODE_GRANT} (RFC 8628)`,
      }),
    ),
    device_code: Type.Optional(Type.String({ description: `${DEVICE_CODE_GRANT} grant (RFC 8628 §3.4)` })),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
    code: Type.Optional(Type.String({ description: 'authorization_code grant' })),
    redirect_uri: Type.Optional(Type.String({ description: 'authorization_code grant' })),
    code_verifier: Type.Optional(Type.String({ description: 'authorization_code grant (PKCE)' })),
    refresh_token: Type.Optional(Type.String({ description: 'refresh_token grant' })),
    scope: Type.Optional(
      Type.String({ description: 'refresh_token grant: narrow the scopes (a subset of the original)' }),
    ),
  },
  { additionalProperties: true },
);

export const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ minimum: 1, description: "Seconds; the client's token_lifetime_seconds" }),
    refresh_token: Type.Optional(
      Type.String({ description: 'When the client has the refresh_token grant; rotates on every use' }),
    ),
    scope: Type.String({ description: 'The granted scopes, space-separated' }),
  },
  { additionalProperties: true },
);
export type TokenResponse = Static<typeof TokenResponse>;

export const OAuthErrorBody = Type.Object(
  {
    error: Type.String({
      description:
        'RFC 6749 §5.2: invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope',
    }),
    error_description: Type.Optional(Type.String()),
  },
  { description: 'RFC 6749 §5.2 error (the token endpoint does not use the sandbox error body)' },
);

/** RFC 7009 §2.1: the revocation request's form parameters. */
export const RevocationRequest = Type.Object(
  {
    token: Type.String({ description: 'The refresh token or access token to revoke' }),
    token_type_hint: Type.Optional(
      Type.String({ description: 'refresh_token or access_token (a hint; every kind is looked up anyway)' }),
    ),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** RFC 8628 §3.1: the device authorization request's form parameters. */
export const DeviceAuthorizationRequest = Type.Object(
  {
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
    scope: Type.Optional(
      Type.String({ description: 'Space-separated scopes; default: every scope of the client' }),
    ),
  },
  { additionalProperties: true },
);

/** RFC 8628 §3.2: the device authorization response. */
export const DeviceAuthorizationResponse = Type.Object(
  {
    device_code: Type.String({
      description: 'What the device polls the token endpoint with; never shown to the user',
    }),
    user_code: Type.String({
      description: 'What the user types on the verification page: 8 letters, XXXX-XXXX',
    }),
    verification_uri: Type.String({ format: 'uri' }),
    verification_uri_complete: Type.String({
      format: 'uri',
      description: 'The page with the code filled in',
    }),
    expires_in: Type.Integer({ description: 'Seconds the codes live' }),
    interval: Type.Integer({ description: 'Seconds to wait between polls (5 more after each slow_down)' }),
  },
  { additionalProperties: true },
);
export type DeviceAuthorizationResponse = Static<typeof DeviceAuthorizationResponse>;

/** RFC 8414 §2: what the sandbox publishes about its authorization server. */
export const AuthorizationServerMetadata = Type.Object(
  {
    issuer: Type.String({
      format: 'uri',
      description: 'The base URL; also the iss of every token and of authorization responses (RFC 9207)',
    }),
    authorization_endpoint: Type.String({ format: 'uri' }),
    token_endpoint: Type.String({ format: 'uri' }),
    revocation_endpoint: Type.String({ format: 'uri' }),
    device_authorization_endpoint: Type.String({ format: 'uri', description: 'RFC 8628 §4' }),
    response_types_supported: Type.Array(Type.String()),
    response_modes_supported: Type.Array(Type.String()),
    grant_types_supported: Type.Array(Type.String()),
    code_challenge_methods_supported: Type.Array(Type.String({ description: 'S256 only' })),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    authorization_response_iss_parameter_supported: Type.Boolean(),
    service_documentation: Type.String({ format: 'uri' }),
  },
  { additionalProperties: true },
);
