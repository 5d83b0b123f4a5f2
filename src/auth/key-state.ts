import { SvcError } from '../errors.js';
import { ApiError } from '../http/errors.js';
import type { Platform } from '../platform/index.js';
import { type CredentialSource, OriginMismatchError, UnknownOriginError } from './credentials.js';

/**
 * What the platform says of an API key, asked with the key itself (GET /v1/me, once, no retries):
 * live, with its id and tenant; stopped — refused (401) although not revoked, because its issuer
 * does not hold its role without an end date now, so it acts again once they do (the 401's
 * details say `state: "stopped"`, with the key's id and tenant (its slug when given, as a live key's), and its message why); or refused
 * for good (revoked, or unknown there); or not asked, because the server in effect (`--base-url`,
 * SVC_BASE_URL, an edited base_url) is not the one the key was stored for (`origin`): a stored key
 * goes to its own server or to none, and another server's 401 says nothing of it (attack23 F1);
 * or not asked because svc does not know its server (`unbound`: a replaced key stored before svc
 * recorded origins, in a profile with no base_url: review23c H1).
 * Shared by the commands that forget a key (logout, profiles rm, a replacing login) and by a
 * replayed creation, so each says the same of it.
 */
export type KeyState =
  | { state: 'rejected' }
  | { state: 'elsewhere'; origin: string; here: string }
  | { state: 'unbound' }
  | { state: 'stopped'; id: string; tenant: string; reason: string }
  | { state: 'live'; id: string; tenant: string | undefined };

/** The details a 401 of a stopped key carries (the sandbox's; another server may give none). */
interface StoppedDetail {
  state: 'stopped';
  key_id: string;
  tenant_id: string;
  /** The tenant's slug, the name every other hint gives it (the sandbox's; else its id is said). */
  tenant_slug?: unknown;
}

const isStopped = (d: unknown): d is StoppedDetail =>
  typeof d === 'object' &&
  d !== null &&
  (d as StoppedDetail).state === 'stopped' &&
  typeof (d as StoppedDetail).key_id === 'string' &&
  typeof (d as StoppedDetail).tenant_id === 'string';

/** The 401 in `error` (itself, or the cause svc wrapped it in), if that is what it is. */
function refusal(error: unknown): ApiError | undefined {
  if (error instanceof ApiError && error.status === 401) return error;
  if (error instanceof SvcError) return refusal(error.cause);
  return undefined;
}

/** What a 401 to a key's call says of it: stopped (with why), or refused for good. */
export function keyRefusal(error: unknown): KeyState | undefined {
  const refused = refusal(error);
  if (!refused) return undefined;
  const stopped = Array.isArray(refused.details) ? refused.details.find(isStopped) : undefined;
  if (!stopped) return { state: 'rejected' };
  const tenant = typeof stopped.tenant_slug === 'string' ? stopped.tenant_slug : stopped.tenant_id;
  return { state: 'stopped', id: stopped.key_id, tenant, reason: refused.message };
}

/**
 * Asks the platform about the key `credentials` holds; undefined when it could not say (any failure
 * but a 401). The HTTP layer takes the key from `credentials` for the request's URL, so a stored
 * key bound to another origin is not sent: `elsewhere`. Ctrl-C is no failure to say nothing of:
 * it is thrown, and the command stops (a logout then forgets nothing).
 */
export async function askAboutKey(
  platform: () => Promise<Platform>,
  credentials: CredentialSource,
): Promise<KeyState | undefined> {
  try {
    const me = await (await platform()).me.get({
      credentials,
      tenant: null,
      maxRetries: 0,
      timeoutMs: 5_000,
    });
    if (me.type !== 'api_key') return undefined;
    return { state: 'live', id: me.id, tenant: me.tenants[0]?.slug };
  } catch (error) {
    if (error instanceof SvcError && error.category === 'interrupted') throw error;
    if (error instanceof OriginMismatchError)
      return { state: 'elsewhere', origin: error.origin, here: error.target };
    if (error instanceof UnknownOriginError) return { state: 'unbound' };
    return keyRefusal(error);
  }
}
