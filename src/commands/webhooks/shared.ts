import type { DeliveryFailureCause } from '../../api/constants.js';
import type { Webhook } from '../../api/schemas/webhooks.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { lookupMayFail, SvcError, UsageError } from '../../errors.js';
import { quoted, rfc3339 } from '../../output/format.js';
import type { Field } from '../../output/output.js';
import {
  DeliveryNotFoundError,
  DlqEntryNotFoundError,
  enableHint,
  WebhookNotFoundError,
} from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';
import {
  INPUT_LIMIT,
  readInputBytes,
  readSecretInputBytes,
  SECRET_INPUT_LIMIT,
  sayReadingTerminal,
  unusualEncoding,
} from '../../system/input.js';
import { secretFromBytes } from '../../system/secret-text.js';
import { shellWord } from '../../system/shell-words.js';
import { nonEmpty } from '../kit.js';
import { deliveryWord } from './delivery-state.js';
import { remedyNow } from './remedies.js';

export const SECRET_ENV = 'SVC_WEBHOOK_SECRET';

/**
 * The webhook signing secret, from --secret-file (its bytes) or SVC_WEBHOOK_SECRET (its UTF-8
 * encoding), never a flag value. An HMAC key is bytes: they are used exactly as given beyond one
 * final newline (system/secret-text.ts), surrounding whitespace warned about, and so is a file
 * saved with a byte-order mark or in UTF-16 (verify's mismatch hint says whether that is why).
 */
export async function readSecret(ctx: Context, secretFile: string | undefined): Promise<Buffer> {
  let raw: Buffer;
  if (secretFile !== undefined) {
    raw = await readSecretInputBytes(
      secretFile,
      ctx.io.stdin,
      '--secret-file',
      SECRET_INPUT_LIMIT,
      ctx.signal,
      (line) => ctx.out.warn(line),
    );
  } else {
    const fromEnv = ctx.env[SECRET_ENV];
    if (fromEnv === undefined) {
      throw new UsageError('no webhook signing secret', {
        hint: `pass --secret-file FILE or set ${SECRET_ENV} (secrets are never flag values)`,
      });
    }
    raw = Buffer.from(fromEnv, 'utf8');
  }
  const from = secretFile === undefined ? SECRET_ENV : `--secret-file ${secretFile}`;
  const { secret, warning } = secretFromBytes(raw, from);
  ctx.secrets.add(secret.toString('utf8'));
  if (warning) ctx.out.warn(warning);
  const unusual = unusualEncoding(secret);
  if (unusual) {
    ctx.secrets.add(unusual.text.trim());
    ctx.out.warn(
      `${from} is ${unusual.encoding}: its bytes are used as they are; save it as plain UTF-8 (printf %s "$SECRET" > FILE)`,
    );
  }
  if (secret.length === 0) {
    throw new UsageError(
      `the webhook signing secret ${secretFile === undefined ? `in ${SECRET_ENV}` : `in ${secretFile}`} is empty`,
    );
  }
  return secret;
}

/** Where sign and verify read the payload: `-` (the default) is standard input. */
export interface Payload {
  body: Buffer;
  /** Read from standard input and empty: almost certainly a forgotten --payload. */
  emptyStdin: boolean;
}

/**
 * The payload of `sign` and `verify`: FILE, or standard input for `-` (a terminal is told it is
 * being read, not left waiting in silence: sayReadingTerminal). Said in words by `emptyStdinWords`.
 */
export async function readPayload(ctx: Context, spec: string): Promise<Payload> {
  const stdin = spec === '-';
  sayReadingTerminal(ctx, spec, '--payload', 'the payload', 'it');
  const body = await readInputBytes(spec, ctx.io.stdin, '--payload', INPUT_LIMIT, ctx.signal);
  return { body, emptyStdin: stdin && body.length === 0 };
}

export const EMPTY_STDIN_WORDS =
  'the payload read from standard input is empty (0 bytes): pass --payload FILE';

export function secretFileFlag(raw: unknown): string | undefined {
  return raw === undefined ? undefined : nonEmpty('--secret-file', raw);
}

/** Unix seconds for --at: a non-negative integer. */
export function unixSecondsFlag(flag: string, raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  if (!/^\d{1,12}$/.test(text)) {
    throw new UsageError(`${flag} must be a Unix time in whole seconds, got ${quoted(String(raw))}`);
  }
  return Number(text);
}

/** A webhook id argument. */
/** A webhook id given on the command line, or undefined when left out (to be asked for). */
export function webhookArg(raw: unknown): string | undefined {
  return raw === undefined ? undefined : nonEmpty('WEBHOOK', raw);
}

/** What failureFields reads: a delivery's or a dead-letter entry's failure. */
export interface Failure {
  webhook_id: string;
  last_error?: string | null;
  last_error_code?: DeliveryFailureCause | null;
  /** A delivery's or dead-letter entry's status; `recovered`: its event was delivered since (recovered_by). */
  status?: string;
  recovered_by?: string | null;
}

/**
 * Why a delivery failed and what to do about it, for people: the last error, its cause and its
 * remedy (what `--json` readers find in last_error and last_error_code), `remedy` as failureRemedy
 * reads it now (for a webhook the platform stopped: why, and who may enable it).
 */
export function failureFields(d: Failure, remedy: string | undefined): Field[] {
  if (!d.last_error && !d.last_error_code) return [];
  return [
    ['error', d.last_error],
    ['cause', d.last_error_code ?? undefined],
    ['remedy', remedy],
  ];
}

/**
 * The remedy of a failure, read against its webhook as it is now (remedyNow, as a followed replay's
 * row gives it). A recovered delivery or entry (its event delivered since) needs none, and its
 * cause's remedy would mislead (a stopped webhook's says "replay the delivery": a second delivery).
 */
export async function failureRemedy(platform: Platform, d: Failure): Promise<string | undefined> {
  if (deliveryWord(d) === 'recovered') {
    const by = d.recovered_by ? `, by ${d.recovered_by}` : '';
    return `none: its event was delivered since${by}; replaying it would send the event again`;
  }
  const cause = d.last_error_code ?? undefined;
  return cause ? remedyNow(platform, d.webhook_id, cause, d.last_error) : undefined;
}

export const webhookFields = (w: Webhook): Field[] => [
  ['id', w.id],
  ['url', w.url, 'url'],
  ['description', w.description],
  ['event types', w.event_types?.join(', ')],
  ['status', w.status],
  ['max attempts', w.max_attempts],
  ['created', w.created_at, 'time'],
  ['updated', w.updated_at, 'time'],
  ['secret rotated', w.secret_rotated_at, 'time'],
  ['previous secret until', w.previous_secret_expires_at, 'time'],
  // Every old secret that still signs (never the secret itself): a rotation within 24 hours of
  // another leaves several, each until its own time. Absent when the server does not say.
  ['previous secrets', previousSecretsText(w.previous_secrets), 'text', 'optional'],
  // Who chose where its data goes, and why the platform disabled it (the owner lost the
  // permission that reads its data, or the client or key it was set up through is gone).
  ['owner', w.owner_id ?? undefined, 'text', 'optional'],
  ['disabled because', w.disabled_reason ?? undefined, 'text', 'optional'],
  // Still signing with the secret a client or key that is gone was given (rotation_reason): in the
  // record too, not only in the warning, which a script reading stdout does not see.
  ['secret at risk', w.rotation_reason ?? undefined, 'text', 'optional'],
];

/**
 * One warning when the webhook still signs with a secret given to an OAuth client or API key that
 * is gone (its rotation_reason, review18 R18-7), with the command that rotates it; after its record.
 */
export function warnRotationReason(ctx: Context, webhook: Webhook): void {
  if (!webhook.rotation_reason) return;
  ctx.out.warn(
    `webhook ${webhook.id}: ${webhook.rotation_reason}: ` +
      svcCommand(ctx.settings(), `webhooks rotate-secret ${shellWord(webhook.id)} --secret-file PATH`),
  );
}

function previousSecretsText(previous: Webhook['previous_secrets']): string | undefined {
  return previous
    ?.map((p) => `until ${rfc3339(p.expires_at)} (rotated out ${rfc3339(p.rotated_out_at)})`)
    .join('; ');
}

/**
 * An event kind named on the command line. Kinds are open-ended (the reference lists two and
 * says there are more), so any dotted lowercase name is accepted and the server decides.
 */
export function eventTypeArg(flag: string, raw: unknown): string {
  const value = nonEmpty(flag, raw);
  if (!/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/.test(value)) {
    throw new UsageError(`${flag} ${quoted(value)} is not an event kind (e.g. exception.sla.breached)`);
  }
  return value;
}

/**
 * A disabled webhook receives no events, replays included: said before anything is replayed (or
 * planned, so a dry run does not promise what the platform refuses, 409 webhook_disabled), from
 * the webhook's status, with the platform's disabled_reason when it stopped the webhook (why, and
 * who may enable it). A webhook that is not there is that error (exit 5, pointing at `svc
 * webhooks ls`: a 404 of a replay cannot say whether the webhook or the delivery is unknown).
 * Otherwise read only to say this early: when it cannot be read, the replays give the verdict.
 * Returns it as read (its kinds: what a replay takes the read permission of), if it was.
 */
export async function refuseDisabledWebhook(
  platform: Platform,
  webhook: string,
): Promise<Webhook | undefined> {
  const found = await platform.webhooks.get(webhook).catch((error: unknown) => {
    if (lookupMayFail(error) && !(error instanceof WebhookNotFoundError)) return undefined;
    throw error;
  });
  if (found?.status === 'disabled') {
    // Stopped by the platform: its reason says why, and who may enable it (and so own it).
    const why = found.disabled_reason
      ? `${found.disabled_reason}; it receives no events, replays included`
      : 'a disabled webhook receives no events, replays included';
    throw new SvcError('conflict', `webhook ${webhook} is disabled: ${why}`, {
      code: 'webhook_disabled',
      hint: enableHint(webhook)(platform.svc),
    });
  }
  return found;
}

/**
 * A read of one delivery or dead-letter entry of a webhook. Its 404 cannot say whether the
 * webhook or the entry is unknown, so one read of the webhook says it: an unknown webhook is that
 * error (pointing at `svc webhooks ls`), else the entry's (pointing at the webhook's list). When
 * the webhook cannot be read, the entry's error stands.
 */
export async function ofKnownWebhook<T>(
  platform: Platform,
  webhook: string,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof DeliveryNotFoundError || error instanceof DlqEntryNotFoundError)) throw error;
    const lookup = await platform.webhooks.get(webhook).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (lookup instanceof WebhookNotFoundError) throw lookup;
    if (lookup !== undefined && !lookupMayFail(lookup)) throw lookup;
    throw error;
  }
}

/** The request fields of `webhooks create` and `update` and the flags that set them (field-flags.ts). */
export const WEBHOOK_FIELD_FLAGS = {
  url: '--url',
  event_types: '--event-type',
  description: '--description',
  max_attempts: '--max-attempts',
} as const;
