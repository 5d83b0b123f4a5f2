// Over 300 lines on purpose: scheduling, attempts and outcomes share the engine's private state
// (the heap of attempts not yet due, the fair queue, the counters). The attempt itself
// (attempt.ts), the fair queue, the retry schedule and the classification live in their own files.
import type { EventType } from '../../api/constants.js';
import { WEBHOOK_HEADERS } from '../../api/constants.js';
import { SIGNATURE_HEADER, signatureHeader } from '../../webhooks/signature.js';
import type { SandboxClock } from '../clock.js';
import { refuseUnlessQueued } from '../domain/dlq-rules.js';
import { DomainError } from '../domain/errors.js';
import type { DataReader } from '../domain/webhook-views.js';
import type {
  DeliveryRecord,
  DlqRecord,
  EventRecord,
  WebhookRecord,
  WebhookStore,
} from '../domain/webhooks.js';
import { sendAttempt } from './attempt.js';
import { type FairCaps, FairQueue } from './fair-queue.js';
import { MinHeap } from './heap.js';
import { createAgent, type Dispatcher } from './http.js';
import { retryDelayMs } from './schedule.js';
import { injectedOutcome, type TargetFault } from './target-faults.js';

/** Engine settings: SandboxOptions.webhooks, `svc sandbox start --webhook-…`, PUT /_sandbox/webhooks/engine. */
export interface DeliverySettings {
  /** Multiplies every delay of the retry schedule (1: real time; 0.001: minutes become ms). */
  timeScale: number;
  /** Limit for one attempt, connection to last byte of the answer (ms). */
  requestTimeoutMs: number;
  /** Attempts on the wire at once, across every target. */
  concurrency: number;
  /** Attempts in flight per webhook; null: a quarter of `concurrency` (at least 1). */
  perWebhookConcurrency: number | null;
  /** Attempts in flight per tenant; null: half of `concurrency` (at least the per-webhook cap). */
  perTenantConcurrency: number | null;
}

export const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = {
  timeScale: 1,
  requestTimeoutMs: 10_000,
  concurrency: 64,
  perWebhookConcurrency: null,
  perTenantConcurrency: null,
};

/** The caps in effect: what is set, or what `concurrency` implies. */
export function fairCaps(s: DeliverySettings): FairCaps {
  const webhook = s.perWebhookConcurrency ?? Math.max(1, Math.floor(s.concurrency / 4));
  return { webhook, tenant: s.perTenantConcurrency ?? Math.max(webhook, Math.floor(s.concurrency / 2)) };
}

export interface DeliveryStats {
  queued: number;
  sending: number;
  attempts: number;
  delivered: number;
  dead_lettered: number;
}

interface Due {
  delivery: DeliveryRecord;
  dueMs: number;
  seq: number;
}

/**
 * Delivers events: a real HTTP POST of the payload to the webhook's URL, signed with
 * X-SVC-Signature over `t.body` (a fresh t on every attempt), at most `concurrency` at once,
 * shared fairly: attempts that are due wait in a FairQueue (one lane per webhook, round-robin
 * across tenants, capped per webhook and per tenant), so a hanging target delays nobody else.
 * Only a 2xx answer delivers; any other outcome is classified (classify.ts) and retried on the
 * schedule (schedule.ts) until max_attempts, after which the delivery is `failed`, its
 * next_retry_at null, and it enters the dead-letter queue. Timing runs on the sandbox clock; the
 * signature's t is the wall clock's (what receivers compare it with).
 */
export class DeliveryEngine {
  readonly settings: DeliverySettings;
  readonly #store: WebhookStore;
  readonly #clock: SandboxClock;
  readonly #random: () => number;
  /** The wall clock that signs attempts (Unix ms): a receiver checks `t` against its own clock. */
  readonly #wall: () => number;
  /** Attempts not due yet, by due time. */
  readonly #due = new MinHeap<Due>((a, b) => a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.seq < b.seq));
  /** Attempts that are due, waiting for a slot. */
  readonly #ready = new FairQueue<DeliveryRecord>(() => fairCaps(this.settings));
  /** Webhooks whose target fails on purpose (target-faults.ts). */
  readonly #targetFaults = new Map<string, TargetFault>();
  #dueSeq = 0;
  #sending = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #agent: Dispatcher | undefined;
  #closed = false;
  #unsettled = 0;
  #settledWaiters: Array<() => void> = [];
  readonly stats: Omit<DeliveryStats, 'queued' | 'sending'> = { attempts: 0, delivered: 0, dead_lettered: 0 };

  constructor(
    store: WebhookStore,
    clock: SandboxClock,
    settings: Partial<DeliverySettings> = {},
    random: () => number = Math.random,
    wall: () => number = Date.now,
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#random = random;
    this.#wall = wall;
    this.settings = { ...DEFAULT_DELIVERY_SETTINGS };
    this.configure(settings);
  }

  configure(change: Partial<DeliverySettings>): DeliverySettings {
    const { concurrency, requestTimeoutMs } = this.settings;
    for (const [key, value] of Object.entries(change)) {
      if (value !== undefined) (this.settings as unknown as Record<string, number | null>)[key] = value;
    }
    this.#ready.reoffer();
    // The agent's pool size and connect timeout follow the settings: a new agent for new attempts.
    const changed =
      this.settings.concurrency !== concurrency || this.settings.requestTimeoutMs !== requestTimeoutMs;
    if (changed && this.#agent) {
      const old = this.#agent;
      this.#agent = undefined;
      void old.close().catch(() => {});
    }
    this.#pump();
    return this.settings;
  }

  currentStats(): DeliveryStats {
    return { queued: this.#due.size + this.#ready.size, sending: this.#sending, ...this.stats };
  }

  /** Deliveries that are neither delivered nor failed. */
  get unsettled(): number {
    return this.#unsettled;
  }

  /**
   * Creates the event and a delivery to every enabled webhook of the tenant subscribed to the
   * kind (or only to `only`, which then receives it whatever its kinds: test events). A disabled
   * webhook receives no events, so `only` disabled is refused (webhook_disabled) and nothing is made.
   */
  emit(
    tenantId: string,
    type: EventType,
    data: Record<string, unknown>,
    only?: WebhookRecord,
  ): { event: EventRecord; deliveries: DeliveryRecord[] } {
    if (only) this.#refuseDisabled(only);
    const event = this.#store.createEvent(tenantId, type, data);
    const targets = only ? [only] : this.#store.subscribers(tenantId, type);
    const deliveries = targets.map((webhook) => this.#store.createDelivery(webhook, event));
    for (const delivery of deliveries) this.#schedule(delivery, this.#clock.now(), true);
    return { event, deliveries };
  }

  /**
   * Rule 1: a new delivery of the same event (the same payload bytes), its attempt counter at
   * zero, sent at once and signed with a fresh timestamp. The DLQ entry of the original, if
   * any, records the replay. A delivery still pending or retrying is not replayed yet; a disabled
   * webhook receives no events, replays included (webhook_disabled: nothing is made, its entry
   * stays queued). `reads`: whether the caller reads the event's data (a refusal's entry shows
   * the target's answer body only then).
   */
  replay(
    original: DeliveryRecord,
    /** The dead-letter entry the caller replays it as (a --dlq run): only while it is queued. */
    asEntry: DlqRecord | undefined,
    reads: DataReader,
  ): { delivery: DeliveryRecord; entry: DlqRecord | undefined } {
    this.#refuseDisabled(original.webhook);
    if (original.status === 'pending' || original.status === 'retrying') {
      throw new DomainError(
        'delivery_in_progress',
        `delivery ${original.id} is still ${original.status}; replay it once it is delivered or failed`,
      );
    }
    if (asEntry) refuseUnlessQueued(asEntry, 'replay', reads);
    const delivery = this.#store.createDelivery(original.webhook, original.event, { replayOf: original.id });
    const entry = this.#store.dlqEntryOfDelivery(original.id);
    if (entry) this.#store.markReplayed(entry, delivery);
    this.#schedule(delivery, this.#clock.now(), true);
    return { delivery, entry };
  }

  /** Makes a webhook's target fail as `fault` says from its next attempt on; null: the target is itself again. */
  setTargetFault(webhookId: string, fault: TargetFault | null): void {
    if (fault) this.#targetFaults.set(webhookId, fault);
    else this.#targetFaults.delete(webhookId);
  }

  targetFault(webhookId: string): TargetFault | null {
    return this.#targetFaults.get(webhookId) ?? null;
  }

  /** Re-reads the clock (after POST /_sandbox/clock moved it) and starts what became due. */
  kick(): void {
    this.#pump();
  }

  /** Resolves when every delivery is delivered or failed, or after `timeoutMs` (false). */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.#unsettled === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#settledWaiters = this.#settledWaiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      this.#settledWaiters.push(done);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#due.clear();
    const agent = this.#agent;
    this.#agent = undefined;
    if (agent) await agent.destroy().catch(() => {});
  }

  #schedule(delivery: DeliveryRecord, dueMs: number, fresh: boolean): void {
    if (fresh) this.#unsettled++;
    delivery.dueMs = dueMs;
    this.#due.push({ delivery, dueMs, seq: ++this.#dueSeq });
    this.#pump();
  }

  #pump(): void {
    if (this.#closed) return;
    const now = this.#clock.now();
    // What became due joins its webhook's lane; stale entries (rescheduled, already sending, or
    // settled since) are dropped here.
    for (let top = this.#due.peek(); top && top.dueMs <= now; top = this.#due.peek()) {
      this.#due.pop();
      const d = top.delivery;
      if (d.dueMs !== top.dueMs || d.sending || d.status === 'delivered' || d.status === 'failed') continue;
      d.dueMs = null;
      this.#ready.push(d.webhook.id, d.webhook.tenant_id, d);
    }
    while (this.#sending < this.settings.concurrency) {
      const d = this.#ready.take();
      if (!d) break;
      if (d.webhook.deleted_at !== null) {
        this.#ready.done(d.webhook.id);
        this.#abandon(d, 'cancelled: the webhook was deleted');
        continue;
      }
      const stopped = this.#store.stopReason(d.webhook);
      if (stopped !== null) {
        // Nothing is sent to a webhook the platform stopped, retries of earlier events included.
        this.#ready.done(d.webhook.id);
        this.#abandon(d, `cancelled: the webhook was stopped: ${stopped}`);
        // It failed for good, as one out of attempts does: dead-lettered, so that once someone
        // enables the webhook again, replay --dlq sends it with the rest.
        d.last_error_code = 'webhook_stopped';
        d.last_error = `webhook_stopped: ${d.last_error}`;
        this.#store.deadLetter(d);
        this.stats.dead_lettered++;
        continue;
      }
      void this.#attempt(d);
    }
    this.#arm(now);
  }

  #arm(now: number): void {
    const top = this.#due.peek();
    if (!top) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      return;
    }
    if (this.#timer && this.#timerAt <= top.dueMs) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = top.dueMs;
    // Long waits are re-checked every minute, so a clock moved forward is noticed even unkicked.
    const wait = Math.min(Math.max(0, top.dueMs - now), 60_000);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      this.#pump();
    }, wait);
    this.#timer.unref();
  }

  #agentFor(): Dispatcher {
    this.#agent ??= createAgent({
      connections: this.settings.concurrency,
      connectTimeoutMs: this.settings.requestTimeoutMs,
    });
    return this.#agent;
  }

  async #attempt(d: DeliveryRecord): Promise<void> {
    this.#sending++;
    d.sending = true;
    d.dueMs = null;
    const startedMs = this.#clock.now();
    // Signed with the wall clock, not the sandbox's: the sandbox clock schedules retries and stamps
    // records, and moving it (POST /_sandbox/clock) must not make deliveries stale for a receiver.
    const t = Math.floor(this.#wall() / 1000);
    const attempt = d.attempt_count + 1;
    const startedIso = this.#clock.iso(startedMs);
    d.first_attempted_at ??= startedIso;
    d.last_attempted_at = startedIso;
    d.next_retry_at = null;
    const started = performance.now();
    const fault = this.#targetFaults.get(d.webhook.id);
    // An injected outcome is still awaited, so it settles after #pump returns, as a sent one would.
    const outcome = fault
      ? await Promise.resolve(injectedOutcome(fault, this.settings.requestTimeoutMs))
      : await sendAttempt(this.#agentFor(), {
          url: d.webhook.url,
          payload: d.event.payload,
          headers: {
            [SIGNATURE_HEADER]: signatureHeader(this.#store.signingSecrets(d.webhook), t, d.event.payload),
            [WEBHOOK_HEADERS.eventId]: d.event.id,
            [WEBHOOK_HEADERS.eventType]: d.event.type,
            [WEBHOOK_HEADERS.deliveryId]: d.id,
            [WEBHOOK_HEADERS.attempt]: String(attempt),
          },
          timeoutMs: this.settings.requestTimeoutMs,
        });
    const duration = Math.round(performance.now() - started);
    this.#sending--;
    this.#ready.done(d.webhook.id);
    d.sending = false;
    if (this.#closed) return;
    this.stats.attempts++;
    d.attempt_count = attempt;
    d.attempts.push({
      attempt,
      started_at: startedIso,
      signature_timestamp: t,
      status_code: outcome.statusCode,
      error_code: outcome.cause,
      error: outcome.error,
      error_without_body: outcome.withoutBody,
      duration_ms: duration,
    });
    d.last_status_code = outcome.statusCode;
    if (outcome.ok) {
      d.delivered_at = this.#clock.iso();
      this.#store.setStatus(d, 'delivered');
      this.#store.recover(d);
      this.stats.delivered++;
      this.#settle();
    } else {
      d.last_error = outcome.error;
      d.last_error_without_body = outcome.withoutBody;
      d.last_error_code = outcome.cause;
      if (attempt >= d.max_attempts) {
        this.#store.setStatus(d, 'failed');
        this.#store.deadLetter(d);
        this.stats.dead_lettered++;
        this.#settle();
      } else {
        this.#store.setStatus(d, 'retrying');
        const due = this.#clock.now() + retryDelayMs(attempt, this.settings.timeScale, this.#random);
        d.next_retry_at = this.#clock.iso(due);
        this.#schedule(d, due, false);
        return;
      }
    }
    this.#pump();
  }

  /** A delivery whose webhook was deleted or stopped: failed without further attempts (#pump dead-letters a stopped one's). */
  #abandon(d: DeliveryRecord, why: string): void {
    d.dueMs = null;
    d.next_retry_at = null;
    d.last_error = why;
    d.last_error_without_body = null;
    this.#store.setStatus(d, 'failed');
    this.#settle();
  }

  /** A disabled or stopped webhook receives no events: a test event or a replay to it is refused. */
  #refuseDisabled(webhook: WebhookRecord): void {
    if (webhook.status === 'disabled') {
      throw new DomainError('webhook_disabled', `webhook ${webhook.id} is disabled; enable it first`);
    }
    const stopped = this.#store.stopReason(webhook);
    if (stopped !== null) {
      throw new DomainError('webhook_disabled', `webhook ${webhook.id} is disabled: ${stopped}`);
    }
  }

  #settle(): void {
    this.#unsettled--;
    if (this.#unsettled === 0 && this.#settledWaiters.length > 0) {
      const waiters = this.#settledWaiters;
      this.#settledWaiters = [];
      for (const w of waiters) w();
    }
  }
}
