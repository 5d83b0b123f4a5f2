import { canonicalJson } from '../api/canonical-json.js';
import type { WorkCall } from '../bulk/item.js';
import type { CommandLine } from '../config/settings.js';
import { SvcError } from '../errors.js';
import { ApiError } from '../http/errors.js';
import { deriveIdempotencyKey } from '../http/idempotency.js';
import { OAuthClientNotFoundError, WebhookNotFoundError } from '../platform/errors.js';
import type { Platform } from '../platform/index.js';
import { markedReplayed, sameRotation } from '../platform/stored-answer.js';
import { shellWord } from '../system/shell-words.js';
import type { PlanChange } from './plan.js';
import { type SecretDir, SecretNotSavedError } from './secrets.js';

/**
 * The creations of svc apply that return a one-time secret (a webhook, an OAuth client), made
 * once however many runs apply the same plan at once (two CI jobs on two runners, two state
 * directories: the journal's lock cannot see the other). Their idempotency key is the plan's, not
 * the run's (`sharedKey`), so the platform acts once and answers the later request with the
 * earlier one's stored answer (Idempotent-Replayed), its secret included. A stored answer is
 * checked against the live resource: one deleted or changed since (a later legitimate
 * re-creation of the same entry within the key's 24 hours) is created anew, under a key derived
 * from the one it replaced, so concurrent re-creations converge too. So is a stored refusal (a 4xx
 * the platform's handler gave an earlier run, kept under the key like any answer: a channel or
 * reach rule the caller has met since): it made nothing, so it is not this run's answer.
 *
 * The platform scopes keys to the caller (a user through one OAuth client, or one API key): runs
 * under two credentials share no key and may each create the entry; svc plan then names both and
 * says which command deletes the extra one.
 */

/**
 * What every run applying this creation of this plan's base state shares: the tenant, the entry
 * (its change key: URL or name, and its id in the file), the live ones of its URL or name when it
 * was planned (`existing`), and the body sent (the platform refuses one key with two bodies).
 */
export function sharedKey(tenantId: string, key: string, change: PlanChange): string {
  const body = Object.fromEntries(change.fields.map((f) => [f.field, f.to ?? null]));
  return deriveIdempotencyKey(
    'svc apply creation',
    tenantId,
    key,
    [...(change.existing ?? [])].sort().join(','),
    canonicalJson(body),
  );
}

/** A creation whose secret could not be saved: made, with its id and what to do. */
export interface Unsaved {
  id: string;
  kind: 'webhook' | 'oauth_client';
  /** The slug of the tenant it was created in: the rotate line names it (--tenant). */
  tenant: string;
}

interface Made {
  id: string;
  /** The webhook's URL or the client's name, as the platform has it. */
  name: string;
  secret: unknown;
  /** When the answer says its secret was last rotated (null: not yet), and when it was made. */
  rotated: string | null | undefined;
  createdAt: string | undefined;
}

/**
 * How many stored answers of one entry's key chain (creations deleted or changed since, refusals)
 * a run looks past. Each is an answer the platform kept less than 24 hours, so a real chain is
 * short (an hourly set-up and tear-down makes 24); this only stops a platform that never stops.
 */
const CHAIN = 1000;

/** A refusal the platform stored for an earlier request with this key, not an answer to this one. */
function storedRefusal(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    markedReplayed(error.headers) &&
    error.lostAnswer === undefined
  );
}

export async function createWithSecret(
  platform: Platform,
  tenant: { id: string; slug: string },
  change: PlanChange,
  body: Record<string, unknown>,
  call: WorkCall,
  run: { resumed: boolean; secrets: SecretDir; unsaved: (u: Unsaved) => void; svc: CommandLine },
): Promise<Record<string, unknown>> {
  const webhook = change.kind === 'webhook';
  const read = { tenant: tenant.id, signal: call.signal };
  let key = call.idempotencyKey;
  for (let link = 0; link < CHAIN; link++) {
    const options = { ...read, idempotencyKey: key };
    let answer: {
      made: Made;
      response: { replayed: boolean; afterLostAnswer: boolean };
    };
    try {
      answer = await send(platform, webhook, body, options);
    } catch (error) {
      if (!storedRefusal(error)) throw error;
      // An earlier run was refused under this key (it made nothing): ask again under the next one.
      key = deriveIdempotencyKey(key, 'after refusal');
      continue;
    }
    const { made, response } = answer;
    // A retry of this very request after a lost answer is this run's own creation.
    // The server's word only: svc chose this key, and an object's time against the Date header is two
    // clocks (review18b R1, R9: a gateway ahead made apply re-create a webhook a thousand times).
    const earlier = response.replayed && !response.afterLostAnswer;
    const live = earlier ? await current(platform, webhook, made.id, read) : undefined;
    if (earlier && (live === undefined || live.name !== made.name)) {
      // The stored answer is of a creation deleted or changed since: this one is a new one.
      key = deriveIdempotencyKey(key, 'after', made.id);
      continue;
    }
    // Another run's creation (or, resumed, the interrupted run's own): the stored answer holds the
    // secret as created, which is still the secret unless it was rotated since — by the one rule of
    // the single verbs (sameRotation): a "last rotated" read back as the answer's own time, or as the
    // creation's, is no rotation (review19 F9).
    if (live?.rotated && !sameRotation(live.rotated, made.rotated, made.createdAt)) {
      return {
        id: made.id,
        ...(run.resumed ? { replayed: true } : { status: 'skipped', reason: 'created_by_another_run' }),
        secret: webhook
          ? `rotated at ${live.rotated} since it was created: not saved (no longer the webhook's current secret; a rotated-out secret still signs, as a previous one, for 24 hours: ${run.svc(`webhooks get ${shellWord(made.id)}`)} shows until when)`
          : `rotated at ${live.rotated} since it was created: not saved (no longer the client's secret)`,
      };
    }
    let file: string;
    try {
      file = await run.secrets.write(
        tenant.slug,
        webhook ? 'webhook' : 'oauth-client',
        made.name,
        made.id,
        made.secret,
      );
    } catch (error) {
      if (!(error instanceof SecretNotSavedError)) throw error;
      run.unsaved({ id: made.id, kind: change.kind as Unsaved['kind'], tenant: tenant.slug });
      throw new SvcError(
        'failure',
        `created ${made.id}, but its secret could not be saved to ${error.path}: ${error.reason}${error.left === undefined ? '' : `; ${error.left}`}`,
        { code: 'secret_not_saved' },
      );
    }
    if (!earlier) return { id: made.id, secret_file: file };
    return run.resumed
      ? { id: made.id, secret_file: file, replayed: true }
      : { status: 'skipped', reason: 'created_by_another_run', id: made.id, secret_file: file };
  }
  throw new SvcError(
    'failure',
    `the platform answered ${CHAIN.toLocaleString('en')} times with an earlier answer to this entry (a creation deleted since, or a refusal); nothing was created`,
    {
      code: 'replayed_deleted',
      hint: 'the platform keeps each answer 24 hours: apply again after that, or create it by hand (svc webhooks create / svc oauth create) and give the entry its id',
    },
  );
}

/** One creation request: what it made (or the stored answer says was made) and how it was answered. */
async function send(
  platform: Platform,
  webhook: boolean,
  body: Record<string, unknown>,
  options: { tenant: string; signal: AbortSignal; idempotencyKey: string },
): Promise<{ made: Made; response: { replayed: boolean; afterLostAnswer: boolean } }> {
  if (webhook) {
    const { data, response } = await platform.webhooks.create(body as never, options).withResponse();
    const { id, url: name, secret, secret_rotated_at: rotated, created_at: createdAt } = data;
    return { made: { id, name, secret, rotated, createdAt }, response };
  }
  const { data, response } = await platform.oauth.clients.create(body as never, options).withResponse();
  const {
    client_id: id,
    name,
    client_secret: secret,
    secret_rotated_at: rotated,
    created_at: createdAt,
  } = data;
  return { made: { id, name, secret, rotated, createdAt }, response };
}

/** The live resource's identity and when its secret was last rotated; undefined when it is gone. */
async function current(
  platform: Platform,
  webhook: boolean,
  id: string,
  read: { tenant: string; signal: AbortSignal },
): Promise<{ name: string; rotated: string | null } | undefined> {
  try {
    if (webhook) {
      const hook = await platform.webhooks.get(id, read);
      return { name: hook.url, rotated: hook.secret_rotated_at };
    }
    const client = await platform.oauth.clients.get(id, read);
    return { name: client.name, rotated: client.secret_rotated_at };
  } catch (error) {
    if (error instanceof WebhookNotFoundError || error instanceof OAuthClientNotFoundError) return undefined;
    throw error;
  }
}

/**
 * What a run says of the creations it made whose secret it could not save (a full disk): they
 * exist, and the platform answers the same request with the secret again for a day, which the
 * same command (resuming the run, with the same key) asks for.
 */
export function unsavedLine(made: Unsaved[], keptMs: number, svcIn: (tenant: string) => CommandLine): string {
  const ids = made.map((m) => m.id).join(', ');
  // Each in the run's command lines and its own tenant (an apply acts in several): a bare line
  // acted in the profile's default tenant (attack25a, creations.ts).
  const rotate = made
    .map((m) =>
      svcIn(m.tenant)(
        m.kind === 'webhook'
          ? `webhooks rotate-secret ${shellWord(m.id)} --secret-file PATH`
          : `oauth rotate-secret ${shellWord(m.id)} --secret-file PATH --yes`,
      ),
    )
    .join('; ');
  return `${made.length.toLocaleString('en')} of the failed items ${made.length === 1 ? 'was' : 'were'} created (${ids}) but their secret could not be saved: make room, then run the same command again within ${keptMs / 3600_000} hours to save it (the platform answers with it again); after that it is lost: ${rotate} ${made.length === 1 ? 'makes a new one' : 'make new ones, one each'}`;
}
