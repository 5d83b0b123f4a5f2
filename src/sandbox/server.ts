import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { isLoopbackHost } from '../api/loopback.js';
import { ApiKey } from '../api/schemas/api-keys.js';
import { AuditTrailEntry } from '../api/schemas/audit.js';
import { ErrorBody } from '../api/schemas/common.js';
import { Me } from '../api/schemas/me.js';
import { OAuthClient } from '../api/schemas/oauth.js';
import { RecordUnreadAnswer, SurfaceRecord } from '../api/schemas/records.js';
import { PermissionEntry, Role, RoleAssignment } from '../api/schemas/roles.js';
import { TenantSummary } from '../api/schemas/tenants.js';
import { User } from '../api/schemas/users.js';
import { DlqEntry, Webhook, WebhookDelivery, WebhookEventPayload } from '../api/schemas/webhooks.js';
import { SandboxClock } from './clock.js';
import { SHARED_COMPILERS } from './compilers.js';
import type { DeliverySettings } from './delivery/engine.js';
import { seedWebhooks } from './delivery/events.js';
import { swaggerOptions } from './openapi.js';
import { registerAuth, registerCredentialRecheck } from './plugins/auth.js';
import { registerConditionalRefusal } from './plugins/conditional.js';
import { clientError, frameworkError, newRequestId, registerErrorHandling } from './plugins/errors.js';
import {
  type FaultConfig,
  FaultInjector,
  registerFaults,
  registerLateFaults,
  registerLatency,
} from './plugins/faults.js';
import { registerFormBodies } from './plugins/form.js';
import { registerHostAndOrigin } from './plugins/host-origin.js';
import { IdempotencyStore, registerIdempotency } from './plugins/idempotency.js';
import { BODY_LIMIT, registerJsonBodies } from './plugins/json-body.js';
import { registerSingleValuedHeaders } from './plugins/single-headers.js';
import { registerStrictQueries } from './plugins/strict-query.js';
import { registerUnmatched } from './plugins/unmatched.js';
import type { RouteContext } from './routes/context.js';
import { ROUTE_MODULES } from './routes/index.js';
import { ADMIN_USER, PRIMARY_TENANT_SLUG, seedDemo, tenantId } from './seed.js';
import { SandboxState } from './state.js';
import { randomId, signJwt } from './tokens.js';
import './types.js';

export interface SandboxOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  seed?: 'demo' | 'none';
  /** Extra generated tenants in org_demo (benchmarks). */
  tenants?: number;
  /** Extra generated users in org_demo, without roles (bulk grants, benchmarks). */
  users?: number;
  faults?: Partial<FaultConfig>;
  jwtSecret?: Buffer;
  /** The webhook delivery engine: retry time scale, request timeout, parallelism. */
  webhooks?: Partial<DeliverySettings>;
  /**
   * The wall clock deliveries are signed with (Unix ms; default Date.now), unmoved by
   * POST /_sandbox/clock: tests inject one to know each signature's t.
   */
  wallClock?: () => number;
  /**
   * The time the sandbox's clock runs on before POST /_sandbox/clock moves it (Unix ms; default
   * Date.now): a test gives one it moves itself, so svc's virtual clock and the platform's move
   * together and a stall of the machine moves neither (review27b M3).
   */
  baseClock?: () => number;
  /** Where the sandbox reports its own problems (default: nowhere). */
  log?: (line: string) => void;
}

export interface Sandbox {
  /** Base URL, e.g. http://127.0.0.1:4010 (also the app URL). */
  readonly url: string;
  /** The address the listener is bound to, as the system reports it (0.0.0.0 or :: for every interface). */
  readonly bound: string;
  readonly app: FastifyInstance;
  readonly state: SandboxState;
  readonly faults: FaultInjector;
  /** A JWT for the seeded administrator (tenant_admin everywhere in org_demo, org_admin). */
  readonly adminToken: string;
  issueToken(
    userId: string,
    options?: { expiresInSeconds?: number; tenantIds?: string[] },
  ): {
    token: string;
    expiresAt: string;
  };
  openapi(): Record<string, unknown>;
  close(): Promise<void>;
}

const ADMIN_TOKEN_SECONDS = 30 * 24 * 3600;
const USER_TOKEN_SECONDS = 3600;

/** Builds the Fastify app with every route, without listening (also used to print the OpenAPI document). */
export async function buildSandbox(options: SandboxOptions = {}): Promise<{
  app: FastifyInstance;
  state: SandboxState;
  faults: FaultInjector;
  context: RouteContext;
  setBaseUrl: (url: string) => void;
}> {
  const log = options.log ?? (() => {});
  const state = new SandboxState({
    ...(options.jwtSecret ? { jwtSecret: options.jwtSecret } : {}),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(options.wallClock ? { wallClock: options.wallClock } : {}),
    ...(options.baseClock ? { clock: new SandboxClock(options.baseClock) } : {}),
  });
  if ((options.seed ?? 'demo') === 'demo') {
    seedDemo(state, options.tenants ?? 0, options.users ?? 0);
    seedWebhooks(state.webhooks, state.clock, tenantId(PRIMARY_TENANT_SLUG));
  }
  const faults = new FaultInjector(options.faults ?? {}, () => state.clock.now());
  let baseUrl = 'http://127.0.0.1:4010';

  const app = Fastify({
    logger: false,
    genReqId: newRequestId,
    requestIdHeader: false,
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    schemaController: { compilersFactory: SHARED_COMPILERS },
    ajv: {
      customOptions: { removeAdditional: false, allErrors: true, coerceTypes: 'array', useDefaults: true },
    },
  });
  for (const schema of [
    ErrorBody,
    TenantSummary,
    Me,
    SurfaceRecord,
    RecordUnreadAnswer,
    ApiKey,
    OAuthClient,
    Webhook,
    WebhookDelivery,
    DlqEntry,
    WebhookEventPayload,
    Role,
    RoleAssignment,
    PermissionEntry,
    AuditTrailEntry,
    User,
  ])
    app.addSchema(schema);
  registerJsonBodies(app);
  await app.register(swagger, swaggerOptions());
  registerFormBodies(app);

  // Hook order matters: errors/ids, a header given twice or a precondition (refused before faults and auth), faults
  // (a fault "before" skips everything else), auth, idempotency; idempotency's onSend stores the
  // real answer before a late fault replaces it.
  // Requests no route takes are answered (404 or 405) after those, before any body is parsed.
  registerErrorHandling(app, log);
  // A Host no web page can rebind, and no state change from another origin (DNS rebinding).
  registerHostAndOrigin(app, () => baseUrl, options.host === undefined ? [] : [options.host]);
  // Every answer's Date is the sandbox's clock (moved by POST /_sandbox/clock): the time grants
  // expire on, so a client can count a relative expiry from it.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('date', new Date(state.clock.now()).toUTCString());
  });
  // A webhook the platform stopped stays stopped (webhook-owner.ts keptStop): every stop is found
  // before a request (a grant that ended since the last one) and after it (a permission it took
  // away), so a grant given back later does not resume it.
  app.addHook('onRequest', async () => state.webhooks.sweepStops());
  app.addHook('onResponse', async () => state.webhooks.sweepStops());
  registerSingleValuedHeaders(app);
  registerConditionalRefusal(app);
  registerFaults(app, faults);
  registerAuth(app, state, () => baseUrl);
  const idempotency = new IdempotencyStore(state.clock);
  registerIdempotency(app, idempotency);
  registerLatency(app, faults);
  registerCredentialRecheck(app, state, () => baseUrl);
  registerLateFaults(app, faults);
  registerUnmatched(app);

  const issueToken: RouteContext['issueToken'] = (userId, opts = {}) => {
    const member = state.identity.memberTenants(userId);
    const allowed = opts.tenantIds ? member.filter((t) => opts.tenantIds!.includes(t.id)) : member;
    const now = Math.floor(state.clock.now() / 1000);
    const exp = now + (opts.expiresInSeconds ?? USER_TOKEN_SECONDS);
    const user = state.identity.users.get(userId);
    const token = signJwt(
      {
        iss: baseUrl,
        sub: userId,
        aud: 'svc',
        iat: now,
        exp,
        jti: randomId('jwt', 8),
        tenants: allowed.map((t) => ({ id: t.id, role: state.identity.rolesOf(userId, t.id)[0] ?? 'none' })),
        org_id: user?.org_id ?? null,
      },
      state.jwtSecret,
    );
    return { token, expiresAt: state.clock.iso(exp * 1000) };
  };
  const context: RouteContext = { state, faults, baseUrl: () => baseUrl, log, issueToken };
  registerStrictQueries(app);
  for (const register of ROUTE_MODULES) register(app, context);
  return {
    app,
    state,
    faults,
    context,
    setBaseUrl: (url) => {
      baseUrl = url;
    },
  };
}

/** Whether the system bound every interface (the address it reports after a wildcard bind). */
export const isEveryInterface = (bound: string) => bound === '0.0.0.0' || bound === '::';

/** Whether the system bound a loopback address (127.0.0.0/8, ::1, or 127.x mapped into IPv6). */
export const isLoopbackBound = (bound: string) =>
  bound === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(bound);

/** Starts the sandbox on loopback (an ephemeral port with `port: 0`). */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const built = await buildSandbox(options);
  const { app, state, faults, context } = built;
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const bound = typeof address === 'object' && address ? address.address : host;
  // A wildcard bind (every interface, however --host spelled it) is not an address to connect
  // to: its URL, what clients are given and the issuer of its tokens, is the loopback address of
  // the same family. So is a loopback bind under a name or spelling clients do not take for
  // loopback (`vm` in /etc/hosts, ::ffff:127.0.0.1): svc sends credentials over plain http only
  // to a host it can tell is loopback, so such a URL would be refused.
  const urlHost = (name: string) => (name.includes(':') ? `[${name}]` : name);
  const loopbackName = isLoopbackHost(new URL(`http://${urlHost(host)}`).hostname);
  const reachable =
    isEveryInterface(bound) || (isLoopbackBound(bound) && !loopbackName)
      ? bound.includes(':') && !bound.startsWith('::ffff:')
        ? '::1'
        : '127.0.0.1'
      : host;
  const url = `http://${urlHost(reachable)}:${port}`;
  built.setBaseUrl(url);
  const adminToken = state.identity.users.has(ADMIN_USER)
    ? context.issueToken(ADMIN_USER, { expiresInSeconds: ADMIN_TOKEN_SECONDS }).token
    : '';
  return {
    url,
    bound,
    app,
    state,
    faults,
    adminToken,
    issueToken: context.issueToken,
    openapi: () => app.swagger() as unknown as Record<string, unknown>,
    close: () => app.close(),
  };
}

/** The OpenAPI document of everything the sandbox serves. */
export async function openapiDocument(): Promise<Record<string, unknown>> {
  const { app } = await buildSandbox({ seed: 'none' });
  await app.ready();
  const doc = app.swagger() as unknown as Record<string, unknown>;
  await app.close();
  return doc;
}
