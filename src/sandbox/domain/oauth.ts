import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  DEVICE_CODE_GRANT,
  OAUTH_GRANT_TYPES,
  OAUTH_LIMITS,
  OAUTH_SCOPES,
  type OAuthGrantType,
  SVC_PUBLIC_CLIENT_ID,
} from '../../api/constants.js';
import { redirectUriMatches } from '../../api/redirect-uris.js';
import type { OAuthClient } from '../../api/schemas/oauth.js';
import type { SandboxClock } from '../clock.js';
import { randomId } from '../tokens.js';
import { DeviceAuthorizations } from './device-authorization.js';
import { hashKey } from './identity.js';
import type { ClientInput } from './oauth-client-rules.js';

/** The seeded first-party client of the svc CLI: a public client (PKCE, no secret; RFC 8252). */
export const CLI_CLIENT_ID = SVC_PUBLIC_CLIENT_ID;

/**
 * A grant a client may be registered for: the reference's two (a tenant's clients register only
 * these), and the RFC 8628 device grant, which only the first-party svc-cli is registered for
 * (`svc login --device`). A client uses only the grants it is registered for (unauthorized_client
 * otherwise, RFC 6749 §5.2), so a tenant client's redirect URIs and PKCE cannot be stepped around
 * by a device authorization no admin enabled.
 */
export type RegisteredGrant = OAuthGrantType | typeof DEVICE_CODE_GRANT;

/** Whether `client` is registered for `grant` (the token endpoint's and device authorization's check). */
export const mayUseGrant = (client: { grant_types: readonly string[] }, grant: RegisteredGrant): boolean =>
  client.grant_types.includes(grant);

export interface OAuthClientRecord extends Omit<OAuthClient, 'grant_types'> {
  grant_types: RegisteredGrant[];
  /** sha256 of the secret; null for a public client (the first-party CLI). */
  secretHash: Buffer | null;
  created_by: string;
  /**
   * The last change of its scopes or redirect URIs (which fields, when, by whom), or null: the
   * consent page says one made recently, so an approving user can notice a client re-armed.
   */
  registrationChange: { fields: string[]; at: string; by: string } | null;
}

export interface AuthorizationCode {
  clientId: string;
  redirectUri: string;
  /** S256 code challenge; null when the request carried none (clients without pkce_required). */
  challenge: string | null;
  userId: string;
  tenantIds: string[];
  scopes: string[];
  expiresAtMs: number;
  usedAtMs: number | null;
  /** The token family issued with this code (revoked if the code is replayed). */
  family: string | null;
  /** Why its one exchange failed (no token issued), said to a retry; null before or after a success. */
  failure?: string | null;
}

export interface RefreshTokenRecord {
  clientId: string;
  userId: string;
  tenantIds: string[];
  scopes: string[];
  family: string;
  expiresAtMs: number;
  /** When the family's absolute lifetime ends (OAUTH_LIMITS.tokenFamilyLifetimeSeconds after its start). */
  familyEndsAtMs: number;
  /** Set when the token was exchanged: presenting it again is reuse, and revokes the family. */
  rotatedAtMs: number | null;
}

/** A consent page that was shown: what the user is asked to approve, answered at most once. */
export interface ConsentTicket {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  challenge: string | null;
  expiresAtMs: number;
  /** Set for the consent page of a device authorization (RFC 8628): its key, not a redirect. */
  deviceKey?: string;
}

/**
 * Whether a redirect URI is one of the client's as it is registered now (exactly, but the port of
 * a loopback one): checked when the consent page is shown, when it is answered and when its code
 * is exchanged, so a URI an administrator removed in between gets nothing (RFC 9700 §4.1).
 */
export function redirectRegistered(client: OAuthClientRecord, redirectUri: string): boolean {
  return client.redirect_uris.some((registered) => redirectUriMatches(registered, redirectUri));
}

/** The scopes of a grant that the client is still allowed (its registration may have lost some). */
export function scopesStillAllowed(client: OAuthClientRecord, scopes: string[]): string[] {
  return scopes.filter((s) => client.scopes.includes(s));
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * A secret's longer fingerprint, as the client record shows it: the first 16 hex characters of the
 * SHA-256 of its UTF-8 bytes (64 bits: two secrets share it about once in 1.8e19, where last4
 * shares once in 16.7 million). A hash prefix of a 256-bit random secret tells nothing of it.
 */
export const fingerprintOf = (secret: string): string => sha256(secret).toString('hex').slice(0, 16);

export interface GrantCounts {
  [grantAndOutcome: string]: number;
}

/**
 * OAuth clients, authorization codes, refresh tokens and consent tickets. Secrets, codes and
 * refresh tokens are kept only as sha256 hashes: they are random with 256 bits of entropy, so
 * a fast hash is enough (a slow password hash protects guessable secrets, which these are not).
 */
export class OAuthStore {
  readonly clients = new Map<string, OAuthClientRecord>();
  readonly #codes = new Map<string, AuthorizationCode>();
  readonly #refreshTokens = new Map<string, RefreshTokenRecord>();
  readonly #tickets = new Map<string, ConsentTicket>();
  /** The token families issued to a client for a user (`client user`): that user's grant to it. */
  readonly #grantFamilies = new Map<string, Set<string>>();
  /** RFC 8628 device authorizations (device-authorization.ts). */
  readonly devices: DeviceAuthorizations;
  readonly #clock: SandboxClock;
  /** Token endpoint outcomes by grant, e.g. `refresh_token ok`, `authorization_code invalid_grant`. */
  readonly grants: GrantCounts = {};
  familiesRevoked = 0;
  codesIssued = 0;

  constructor(clock: SandboxClock) {
    this.#clock = clock;
    this.devices = new DeviceAuthorizations(clock);
    this.clients.set(CLI_CLIENT_ID, {
      client_id: CLI_CLIENT_ID,
      name: 'svc CLI',
      description: 'The first-party svc command-line tool (a public client: PKCE, no secret)',
      redirect_uris: ['http://127.0.0.1/callback', 'http://[::1]/callback'],
      grant_types: [...OAUTH_GRANT_TYPES, DEVICE_CODE_GRANT],
      scopes: Object.keys(OAUTH_SCOPES),
      token_lifetime_seconds: OAUTH_LIMITS.tokenLifetime.default,
      refresh_token_lifetime_seconds: OAUTH_LIMITS.refreshTokenLifetime.default,
      pkce_required: true,
      created_at: '2024-06-01T00:00:00Z',
      secret_rotated_at: null,
      secret_last4: null,
      secret_sha256_prefix: null,
      tenant_id: null,
      secretHash: null,
      created_by: 'system',
      registrationChange: null,
    });
  }

  createClient(
    tenantId: string,
    input: ClientInput,
    actor: string,
  ): { client: OAuthClientRecord; secret: string } {
    const secret = newSecret();
    const client: OAuthClientRecord = {
      client_id: randomId('cli', 12),
      ...input,
      created_at: this.#clock.iso(),
      secret_rotated_at: null,
      secret_last4: secret.slice(-4),
      secret_sha256_prefix: fingerprintOf(secret),
      tenant_id: tenantId,
      secretHash: sha256(secret),
      created_by: actor,
      registrationChange: null,
    };
    this.clients.set(client.client_id, client);
    return { client, secret };
  }

  /**
   * Applies a checked update (clientUpdate; `changes`: the fields it changes) by `actor`; tokens
   * already issued keep their lifetimes. A change of scopes or redirect URIs is remembered.
   */
  updateClient(
    client: OAuthClientRecord,
    input: ClientInput,
    changes: readonly string[],
    actor: string,
  ): OAuthClientRecord {
    Object.assign(client, input);
    const fields = changes.filter((f) => f === 'scopes' || f === 'redirect_uris');
    if (fields.length > 0) client.registrationChange = { fields, at: this.#clock.iso(), by: actor };
    return client;
  }

  /**
   * Removes a client: its secret, refresh tokens and codes stop working at once, and its access
   * tokens are refused on their next call (the auth plugin looks the client up on every call).
   */
  deleteClient(client: OAuthClientRecord): string {
    this.clients.delete(client.client_id);
    return this.#clock.iso();
  }

  /** A new secret replaces the old one at once; tokens already issued stay valid. */
  rotateSecret(client: OAuthClientRecord): string {
    const secret = newSecret();
    client.secretHash = sha256(secret);
    client.secret_rotated_at = this.#clock.iso();
    client.secret_last4 = secret.slice(-4);
    client.secret_sha256_prefix = fingerprintOf(secret);
    return secret;
  }

  secretMatches(client: OAuthClientRecord, secret: string): boolean {
    return client.secretHash !== null && timingSafeEqual(client.secretHash, sha256(secret));
  }

  openTicket(ticket: Omit<ConsentTicket, 'expiresAtMs'>): string {
    const id = randomBytes(24).toString('base64url');
    this.#tickets.set(hashKey(id), {
      ...ticket,
      expiresAtMs: this.#clock.now() + OAUTH_LIMITS.consentLifetimeSeconds * 1000,
    });
    return id;
  }

  /** The ticket, removed: a consent page is answered once. */
  takeTicket(id: string): ConsentTicket | undefined {
    const k = hashKey(id);
    const ticket = this.#tickets.get(k);
    this.#tickets.delete(k);
    return ticket && ticket.expiresAtMs > this.#clock.now() ? ticket : undefined;
  }

  issueCode(grant: Omit<AuthorizationCode, 'expiresAtMs' | 'usedAtMs' | 'family'>): string {
    const code = randomBytes(32).toString('base64url');
    this.#codes.set(hashKey(code), {
      ...grant,
      expiresAtMs: this.#clock.now() + OAUTH_LIMITS.codeLifetimeSeconds * 1000,
      usedAtMs: null,
      family: null,
    });
    this.codesIssued++;
    return code;
  }

  findCode(code: string): AuthorizationCode | undefined {
    return this.#codes.get(hashKey(code));
  }

  issueRefreshToken(grant: Omit<RefreshTokenRecord, 'rotatedAtMs'>): string {
    const token = `svc_rt_${randomBytes(32).toString('base64url')}`;
    this.#refreshTokens.set(hashKey(token), { ...grant, rotatedAtMs: null });
    return token;
  }

  /** Notes a token family issued to a client for a user (every token grant starts one). */
  noteFamily(clientId: string, userId: string, family: string): void {
    const k = `${clientId} ${userId}`;
    const families = this.#grantFamilies.get(k);
    if (families) families.add(family);
    else this.#grantFamilies.set(k, new Set([family]));
  }

  /** The token families ever issued to a client for a user. */
  familiesOf(clientId: string, userId: string): ReadonlySet<string> {
    return this.#grantFamilies.get(`${clientId} ${userId}`) ?? new Set();
  }

  findRefreshToken(token: string): RefreshTokenRecord | undefined {
    return this.#refreshTokens.get(hashKey(token));
  }

  count(grant: string, outcome: string): void {
    const name = `${grant} ${outcome}`;
    this.grants[name] = (this.grants[name] ?? 0) + 1;
  }
}

function newSecret(): string {
  return `svc_cs_${randomBytes(32).toString('base64url')}`;
}

/** A client as the API shows it: no secret hash, no internal fields. */
export function publicClient(client: OAuthClientRecord): OAuthClient {
  const { secretHash: _hash, created_by: _by, registrationChange: _change, ...rest } = client;
  // A tenant's client (the only kind shown) registers only the reference's grant types.
  const shown = (g: RegisteredGrant): g is OAuthGrantType => g !== DEVICE_CODE_GRANT;
  return { ...rest, grant_types: rest.grant_types.filter(shown) };
}
