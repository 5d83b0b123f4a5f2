// Over 300 lines on purpose: one store keeps webhooks, events, deliveries, their counts and the
// dead-letter queue, whose indexes must change together (a status change moves a count; a
// recovery touches deliveries and queue entries). Views are in webhook-views.ts.
import { randomBytes } from 'node:crypto';
import { changedFields } from '../../api/changed-fields.js';
import type {
  DeliveryFailureCause,
  DeliveryStatus,
  DeliveryStatusFilter,
  DlqStatus,
  EventType,
} from '../../api/constants.js';
import type { DeliveryAttempt } from '../../api/schemas/webhooks.js';
import { SECRET_PREFIX } from '../../webhooks/signature.js';
import type { SandboxClock } from '../clock.js';
import { randomId } from '../tokens.js';
import { refuseUnlessQueued } from './dlq-rules.js';
import { conflict } from './errors.js';
import type { DataReader } from './webhook-views.js';

/**
 * Webhook subscriptions, events, deliveries and the dead-letter queue, in memory. The delivery
 * engine (src/sandbox/delivery/) moves deliveries through their states; this store only keeps
 * them, counts them and lists them.
 */

export interface WebhookRecord {
  id: string;
  tenant_id: string;
  url: string;
  description: string;
  event_types: EventType[];
  status: 'enabled' | 'disabled';
  max_attempts: number;
  created_at: string;
  updated_at: string;
  secret_rotated_at: string | null;
  previous_secret_expires_at: string | null;
  deleted_at: string | null;
  secret: string;
  /**
   * The secrets rotated out, oldest first, each with the time its rotation promised it signs
   * until; restoreSecret pops the last. Expired ones are dropped at the next rotation.
   */
  rotatedOut: RotatedOut[];
  /** Who last chose where its data goes, and through what (webhook-owner.ts); null: nobody (none yet). */
  owner: WebhookOwner | null;
  /**
   * The OAuth client or API key (and the person behind it) the current signing secret was answered
   * through — a creation through a third-party token or a key; null: a user's own login (a
   * rotation, users-only, sets it so). The secret outlives that credential: webhook-owner.ts
   * rotationReason says so once it is gone (review18 R18-7).
   */
  secretGivenTo: WebhookOwner | null;
  /** Why the platform stopped it, kept until it is enabled or disabled on request (webhook-owner.ts keptStop); null: not stopped. */
  stopped: string | null;
  /** The URL and owner a URL change by its owner replaced: putting that URL back gives it back (webhook-owner.ts ownerAfter). */
  undo: { url: string; owner: WebhookOwner | null } | null;
  seq: number;
}

/** The person who chose a webhook's URL and kinds, and the credential they chose them through. */
export interface WebhookOwner {
  /** A user id; null when no person is behind the credential (a key the test controls minted). */
  user: string | null;
  /** A third-party OAuth client or an API key the choice was made through; null: the user's own login. */
  via: { kind: 'oauth_client' | 'api_key'; id: string } | null;
}

/** A secret a rotation replaced, and what that rotation changed (so it can be undone). */
export interface RotatedOut {
  secret: string;
  /** Signs until then (sandbox clock, ms). */
  expiresMs: number;
  rotated_out_at: string;
  expires_at: string;
  /** The webhook's fields before the rotation, put back by restoreSecret. */
  before: Pick<WebhookRecord, 'secret_rotated_at' | 'previous_secret_expires_at' | 'secretGivenTo'>;
}

export interface EventRecord {
  id: string;
  type: EventType;
  tenant_id: string;
  created_at: string;
  /** The serialised payload: every attempt and every replay sends exactly these bytes. */
  payload: Buffer;
}

export interface DeliveryRecord {
  id: string;
  webhook: WebhookRecord;
  event: EventRecord;
  attempt_count: number;
  max_attempts: number;
  status: DeliveryStatus;
  last_status_code: number | null;
  last_error: string | null;
  /** last_error without the target's answer body, which only the kind's readers see (null: it quotes none). */
  last_error_without_body: string | null;
  last_error_code: DeliveryFailureCause | null;
  first_attempted_at: string | null;
  last_attempted_at: string | null;
  next_retry_at: string | null;
  /** When the next attempt is due, on the sandbox clock (ms); null when none is. */
  dueMs: number | null;
  created_at: string;
  delivered_at: string | null;
  replay_of: string | null;
  /** status recovered: the replay that was delivered. */
  recovered_by: string | null;
  attempts: AttemptRecord[];
  /** An attempt is on the wire. */
  sending: boolean;
  seq: number;
}

/** An attempt as the API shows it, and its error without the target's answer body (see last_error_without_body). */
export type AttemptRecord = DeliveryAttempt & { error_without_body: string | null };

export interface DlqRecord {
  id: string;
  delivery: DeliveryRecord;
  status: DlqStatus;
  dead_lettered_at: string;
  deadMs: number;
  replay_count: number;
  last_replayed_at: string | null;
  last_replay_delivery_id: string | null;
  discarded_at: string | null;
  recovered_by: string | null;
  seq: number;
}

type Counts = Record<DeliveryStatus, number>;

/** Signing secrets look like Stripe's: a prefix and 32 random bytes. */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;
/**
 * How many secrets rotated out sign at once (besides the current one): a rotation beyond is
 * refused rather than ending an earlier rotation's promise early.
 */
export const MAX_PREVIOUS_SECRETS = 5;

export class WebhookStore {
  readonly #clock: SandboxClock;
  readonly #webhooks = new Map<string, WebhookRecord>();
  readonly #byTenant = new Map<string, WebhookRecord[]>();
  readonly #deliveries = new Map<string, DeliveryRecord>();
  readonly #deliveriesOf = new Map<string, DeliveryRecord[]>();
  /** Deliveries of one event to one webhook (the original and its replays), by `webhook|event`. */
  readonly #ofEvent = new Map<string, DeliveryRecord[]>();
  readonly #counts = new Map<string, Counts>();
  readonly #dlqOf = new Map<string, DlqRecord[]>();
  readonly #dlqByDelivery = new Map<string, DlqRecord>();
  #seq = 0;
  eventCount = 0;
  /**
   * Why the platform stopped a webhook (its owner lost the read permissions of its kinds, or the
   * credential it was set up through is gone), or null: set by SandboxState (webhook-owner.ts
   * keptStop: once stopped, it stays so until enabled). A stopped webhook receives no events, as
   * a disabled one.
   */
  stopReason: (webhook: WebhookRecord) => string | null = () => null;

  constructor(clock: SandboxClock) {
    this.#clock = clock;
  }

  // ── webhooks ────────────────────────────────────────────────────────────────────────────

  create(
    tenantId: string,
    input: {
      url: string;
      event_types: EventType[];
      description?: string | undefined;
      status?: 'enabled' | 'disabled' | undefined;
      max_attempts?: number | undefined;
    },
    options: { id?: string; secret?: string; createdAt?: string; owner?: WebhookOwner } = {},
  ): WebhookRecord {
    const now = options.createdAt ?? this.#clock.iso();
    const record: WebhookRecord = {
      id: options.id ?? randomId('wh'),
      tenant_id: tenantId,
      url: input.url,
      description: input.description ?? '',
      event_types: [...input.event_types],
      status: input.status ?? 'enabled',
      max_attempts: input.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
      created_at: now,
      updated_at: now,
      secret_rotated_at: null,
      previous_secret_expires_at: null,
      deleted_at: null,
      secret: options.secret ?? newSigningSecret(),
      rotatedOut: [],
      owner: options.owner ?? null,
      secretGivenTo: options.owner?.via ? options.owner : null,
      stopped: null,
      undo: null,
      seq: ++this.#seq,
    };
    this.#webhooks.set(record.id, record);
    const list = this.#byTenant.get(tenantId);
    if (list) list.push(record);
    else this.#byTenant.set(tenantId, [record]);
    this.#counts.set(record.id, { pending: 0, retrying: 0, delivered: 0, failed: 0, recovered: 0 });
    return record;
  }

  /** A live webhook of the tenant (never one of another tenant, never a deleted one). */
  get(tenantId: string, id: string): WebhookRecord | undefined {
    const record = this.#webhooks.get(id);
    return record && record.tenant_id === tenantId && record.deleted_at === null ? record : undefined;
  }

  /** Any webhook by id, deleted ones included (sandbox controls). */
  byId(id: string): WebhookRecord | undefined {
    return this.#webhooks.get(id);
  }

  list(tenantId: string): WebhookRecord[] {
    return (this.#byTenant.get(tenantId) ?? []).filter((w) => w.deleted_at === null);
  }

  /** Finds (and keeps: stopReason) every stop of a live webhook of any tenant as of now. */
  sweepStops(): void {
    for (const w of this.#webhooks.values()) if (w.deleted_at === null) this.stopReason(w);
  }

  /**
   * Applies a change; returns the names of the fields it changed. A field set to what it is (event
   * kinds compared as a set) is no change: a change of nothing leaves the webhook as it was,
   * updated_at too.
   */
  update(
    record: WebhookRecord,
    change: Partial<Pick<WebhookRecord, 'url' | 'description' | 'event_types' | 'status' | 'max_attempts'>>,
  ): string[] {
    const changed = changedFields(record, change);
    const fields = record as unknown as Record<string, unknown>;
    for (const key of changed) fields[key] = change[key as keyof typeof change];
    if (changed.length > 0) record.updated_at = this.#clock.iso();
    return changed;
  }

  softDelete(record: WebhookRecord): WebhookRecord {
    record.deleted_at = this.#clock.iso();
    record.updated_at = record.deleted_at;
    return record;
  }

  /**
   * A new secret. The one it replaces keeps signing (one more v1) for 24 hours, and so does every
   * secret rotated out before, until its own rotation's 24 hours are over: a rotation never ends
   * what an earlier one promised. With MAX_PREVIOUS_SECRETS still signing, it is refused (409).
   */
  rotateSecret(record: WebhookRecord): WebhookRecord {
    const now = this.#clock.now();
    const live = this.previousSecrets(record).reverse();
    if (live.length >= MAX_PREVIOUS_SECRETS) {
      throw conflict(
        `webhook ${record.id} already has ${live.length} secrets rotated out that still sign, the most it keeps ` +
          `(the oldest until ${live[0]!.expires_at}): rotate again after then, or undo the last rotation with restore-secret`,
      );
    }
    const expires_at = this.#clock.iso(now + PREVIOUS_SECRET_MS);
    record.rotatedOut = [
      ...live,
      {
        secret: record.secret,
        expiresMs: now + PREVIOUS_SECRET_MS,
        rotated_out_at: this.#clock.iso(now),
        expires_at,
        before: {
          secret_rotated_at: record.secret_rotated_at,
          previous_secret_expires_at: record.previous_secret_expires_at,
          secretGivenTo: record.secretGivenTo,
        },
      },
    ];
    // Rotations are users' own (operations.ts): the new secret is answered to no other credential.
    record.secretGivenTo = null;
    record.previous_secret_expires_at = expires_at;
    record.secret = newSigningSecret();
    record.secret_rotated_at = this.#clock.iso(now);
    record.updated_at = record.secret_rotated_at;
    return record;
  }

  /**
   * Undoes the last rotation not yet undone, while the secret it replaced still signs: that secret
   * is the current one again (the secrets rotated out before it sign on until their own times),
   * and the secret the rotation issued stops working at once. Rotations are undone as a stack:
   * two restores after two rotations give the first secret back. `svc webhooks listen --webhook`
   * rotates to learn a secret and puts the webhook back this way, so its real receiver never needs
   * a new one, even when a second session took the webhook over and undid its own rotation first.
   */
  restoreSecret(record: WebhookRecord): WebhookRecord {
    const last = record.rotatedOut.at(-1);
    if (!last || last.expiresMs <= this.#clock.now()) {
      throw conflict(
        'there is no rotation to undo: the secret was not rotated, or the previous one stopped signing after 24 hours',
      );
    }
    record.secret = last.secret;
    Object.assign(record, last.before);
    record.rotatedOut = record.rotatedOut.slice(0, -1);
    record.updated_at = this.#clock.iso();
    return record;
  }

  /** The secrets rotated out that still sign, the last rotated out first. */
  previousSecrets(record: WebhookRecord, now = this.#clock.now()): RotatedOut[] {
    return record.rotatedOut.filter((e) => e.expiresMs > now).reverse();
  }

  /** The secrets a delivery is signed with now: the current one, then those being rotated out. */
  signingSecrets(record: WebhookRecord): string[] {
    return [record.secret, ...this.previousSecrets(record).map((e) => e.secret)];
  }

  // ── events and deliveries ───────────────────────────────────────────────────────────────

  createEvent(
    tenantId: string,
    type: EventType,
    data: Record<string, unknown>,
    createdAt?: string,
  ): EventRecord {
    const id = randomId('evt');
    const created_at = createdAt ?? this.#clock.iso();
    // Key order is part of the documented payload shape.
    const payload = Buffer.from(JSON.stringify({ id, type, created_at, tenant_id: tenantId, data }));
    this.eventCount++;
    return { id, type, tenant_id: tenantId, created_at, payload };
  }

  /** Webhooks of the tenant that receive this kind (enabled, and not stopped). */
  subscribers(tenantId: string, type: EventType): WebhookRecord[] {
    return this.list(tenantId).filter(
      (w) => w.status === 'enabled' && w.event_types.includes(type) && this.stopReason(w) === null,
    );
  }

  createDelivery(
    webhook: WebhookRecord,
    event: EventRecord,
    options: { replayOf?: string; createdAt?: string } = {},
  ): DeliveryRecord {
    const delivery: DeliveryRecord = {
      id: randomId('dlv'),
      webhook,
      event,
      attempt_count: 0,
      max_attempts: webhook.max_attempts,
      status: 'pending',
      last_status_code: null,
      last_error: null,
      last_error_without_body: null,
      last_error_code: null,
      first_attempted_at: null,
      last_attempted_at: null,
      next_retry_at: null,
      dueMs: null,
      created_at: options.createdAt ?? this.#clock.iso(),
      delivered_at: null,
      replay_of: options.replayOf ?? null,
      recovered_by: null,
      attempts: [],
      sending: false,
      seq: ++this.#seq,
    };
    this.#deliveries.set(delivery.id, delivery);
    const list = this.#deliveriesOf.get(webhook.id);
    if (list) list.push(delivery);
    else this.#deliveriesOf.set(webhook.id, [delivery]);
    const key = `${webhook.id}|${event.id}`;
    const same = this.#ofEvent.get(key);
    if (same) same.push(delivery);
    else this.#ofEvent.set(key, [delivery]);
    this.#counts.get(webhook.id)!.pending++;
    return delivery;
  }

  delivery(webhookId: string, deliveryId: string): DeliveryRecord | undefined {
    const delivery = this.#deliveries.get(deliveryId);
    return delivery && delivery.webhook.id === webhookId ? delivery : undefined;
  }

  deliveriesOf(webhookId: string): DeliveryRecord[] {
    return this.#deliveriesOf.get(webhookId) ?? [];
  }

  /** Moves a delivery to another state, keeping the per-webhook counts right. */
  setStatus(delivery: DeliveryRecord, status: DeliveryStatus): void {
    if (delivery.status === status) return;
    const counts = this.#counts.get(delivery.webhook.id)!;
    counts[delivery.status]--;
    counts[status]++;
    delivery.status = status;
  }

  /**
   * A delivered delivery recovers every failed delivery of the same event to the same webhook
   * (the original a replay replays, failed replays of it): the event reached its target, so they
   * are not counted as failures any more, and their dead-letter entries still queued leave the
   * queue (replaying them would deliver the event twice). Their history stays as it was.
   */
  recover(delivered: DeliveryRecord): void {
    for (const d of this.#ofEvent.get(`${delivered.webhook.id}|${delivered.event.id}`) ?? []) {
      if (d === delivered || d.status !== 'failed') continue;
      this.setStatus(d, 'recovered');
      d.recovered_by = delivered.id;
      const entry = this.#dlqByDelivery.get(d.id);
      if (entry?.status === 'queued') {
        entry.status = 'recovered';
        entry.recovered_by = delivered.id;
      }
    }
  }

  summary(webhookId: string): {
    total: number;
    delivered: number;
    failed: number;
    in_flight: number;
    recovered: number;
  } {
    const c = this.#counts.get(webhookId) ?? {
      pending: 0,
      retrying: 0,
      delivered: 0,
      failed: 0,
      recovered: 0,
    };
    return {
      total: c.pending + c.retrying + c.delivered + c.failed + c.recovered,
      delivered: c.delivered,
      failed: c.failed,
      in_flight: c.pending + c.retrying,
      recovered: c.recovered,
    };
  }

  /** Recent first, from just before `beforeSeq`. */
  listDeliveries(
    webhookId: string,
    filter: DeliveryStatusFilter | undefined,
    limit: number,
    beforeSeq: number | undefined,
  ): { page: DeliveryRecord[]; more: boolean } {
    const all = this.deliveriesOf(webhookId);
    const matches = (d: DeliveryRecord) =>
      filter === undefined ||
      d.status === filter ||
      (filter === 'in_flight' && (d.status === 'pending' || d.status === 'retrying'));
    const page: DeliveryRecord[] = [];
    for (let i = all.length - 1; i >= 0; i--) {
      const d = all[i]!;
      if (beforeSeq !== undefined && d.seq >= beforeSeq) continue;
      if (!matches(d)) continue;
      if (page.length === limit) return { page, more: true };
      page.push(d);
    }
    return { page, more: false };
  }

  // ── dead-letter queue ───────────────────────────────────────────────────────────────────

  deadLetter(delivery: DeliveryRecord, atMs = this.#clock.now()): DlqRecord {
    const entry: DlqRecord = {
      id: randomId('dlq'),
      delivery,
      status: 'queued',
      dead_lettered_at: this.#clock.iso(atMs),
      deadMs: atMs,
      replay_count: 0,
      last_replayed_at: null,
      last_replay_delivery_id: null,
      discarded_at: null,
      recovered_by: null,
      seq: ++this.#seq,
    };
    const list = this.#dlqOf.get(delivery.webhook.id);
    if (list) list.push(entry);
    else this.#dlqOf.set(delivery.webhook.id, [entry]);
    this.#dlqByDelivery.set(delivery.id, entry);
    return entry;
  }

  dlqEntry(webhookId: string, entryId: string): DlqRecord | undefined {
    return this.dlqOf(webhookId).find((e) => e.id === entryId);
  }

  dlqEntryOfDelivery(deliveryId: string): DlqRecord | undefined {
    return this.#dlqByDelivery.get(deliveryId);
  }

  dlqOf(webhookId: string): DlqRecord[] {
    return this.#dlqOf.get(webhookId) ?? [];
  }

  /** Oldest first; `total` counts every match. */
  listDlq(
    webhookId: string,
    filter: { status: DlqStatus | 'all'; eventType?: string; sinceMs?: number; untilMs?: number },
    limit: number,
    afterSeq: number | undefined,
  ): { page: DlqRecord[]; more: boolean; total: number } {
    const matches = (e: DlqRecord) =>
      (filter.status === 'all' || e.status === filter.status) &&
      (filter.eventType === undefined || e.delivery.event.type === filter.eventType) &&
      (filter.sinceMs === undefined || e.deadMs >= filter.sinceMs) &&
      (filter.untilMs === undefined || e.deadMs < filter.untilMs);
    const page: DlqRecord[] = [];
    let total = 0;
    let more = false;
    for (const e of this.dlqOf(webhookId)) {
      if (!matches(e)) continue;
      total++;
      if (afterSeq !== undefined && e.seq <= afterSeq) continue;
      if (page.length < limit) page.push(e);
      else more = true;
    }
    return { page, more, total };
  }

  /**
   * Records a replay of the entry's delivery. Only a queued entry leaves the queue by it: one
   * discarded (or recovered) stays so, as its delivery replayed by id is a new delivery and no
   * undoing of the discard (s15 dryrun15 F4: it became "replayed", left --status discarded, and
   * its dlq_ id was then replayed, not refused); the replay is still recorded on it.
   */
  markReplayed(entry: DlqRecord, replay: DeliveryRecord): void {
    if (entry.status === 'queued') entry.status = 'replayed';
    entry.replay_count++;
    entry.last_replayed_at = replay.created_at;
    entry.last_replay_delivery_id = replay.id;
  }

  /** Refused (409) once the entry left the queue otherwise: see dlq-rules.ts. */
  discard(entry: DlqRecord, reads: DataReader): DlqRecord {
    refuseUnlessQueued(entry, 'discard', reads);
    if (entry.status !== 'discarded') {
      entry.status = 'discarded';
      entry.discarded_at = this.#clock.iso();
    }
    return entry;
  }
}

export const DEFAULT_MAX_ATTEMPTS = 5;
