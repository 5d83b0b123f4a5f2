// Past 300 lines: every webhook resource (webhooks, deliveries, replays, the dead-letter queue) as
// the platform boundary types and checks it; split, their shared answer rules would be read apart.
import { type EventType, WEBHOOK_STATUSES } from '../api/constants.js';
import {
  DeliveryList,
  type DeliveryListQuery,
  DlqEntry,
  DlqList,
  type DlqListQuery,
  TestEventResult,
  Webhook,
  type WebhookCreateBody,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookList,
  type WebhookUpdateBody,
  WebhookWithSecret,
} from '../api/schemas/webhooks.js';
import { itemKey } from '../http/item-key.js';
import { path } from '../http/path.js';
import type { ApiPromise } from './api-promise.js';
import type { JsonSchema } from './check.js';
import {
  DeliveryNotFoundError,
  DlqEntryNotFoundError,
  deadLettersOf,
  deliveriesOf,
  shownBy,
  WebhookNotFoundError,
} from './errors.js';
import type { CallOptions, Transport } from './transport.js';

/** The answer to DELETE /v1/webhooks/{id} (the sandbox declares it inline in its route). */
const WebhookDeleted: JsonSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' }, deleted: { type: 'boolean' }, deleted_at: { type: 'string' } },
};

/** Webhook subscriptions of the tenant (`/v1/webhooks`), their deliveries and dead-letter queues. */
/**
 * The paths of one webhook, for the requests below and for the `svc api` commands svc prints to
 * run by hand (commands/webhooks/by-hand.ts): the platform client owns its paths.
 */
export const webhookPaths = {
  one: (id: string) => path`/v1/webhooks/${id}`,
  restoreSecret: (id: string) => path`/v1/webhooks/${id}/restore-secret`,
};

export class Webhooks {
  readonly deliveries: Deliveries;
  readonly dlq: DeadLetters;

  constructor(private readonly transport: Transport) {
    this.deliveries = new Deliveries(transport);
    this.dlq = new DeadLetters(transport);
  }

  list(query: { limit?: number; cursor?: string } = {}, options?: CallOptions): ApiPromise<WebhookList> {
    return this.transport.page({ method: 'GET', path: '/v1/webhooks', query, schema: WebhookList }, options);
  }

  listAll(query: { limit?: number } = {}, options?: CallOptions): AsyncGenerator<Webhook> {
    return this.transport.all({ method: 'GET', path: '/v1/webhooks', query, schema: WebhookList }, options);
  }

  get(id: string, options?: CallOptions): ApiPromise<Webhook> {
    return this.transport.call(this.#one('GET', id, Webhook), options);
  }

  /** Subscribes a URL; the answer is the only place the signing secret is ever shown. */
  create(
    body: Omit<WebhookCreateBody, 'idempotency_key'>,
    options?: CallOptions,
  ): ApiPromise<WebhookWithSecret> {
    return this.transport.call(
      {
        method: 'POST',
        path: '/v1/webhooks',
        body,
        schema: WebhookWithSecret,
        check: shownBy('webhooks ls'),
      },
      options,
    );
  }

  update(id: string, body: WebhookUpdateBody, options?: CallOptions): ApiPromise<Webhook> {
    return this.transport.call(
      { ...this.#one('PATCH', id, Webhook), body, check: shownBy('webhooks get', id) },
      options,
    );
  }

  delete(
    id: string,
    options?: CallOptions,
  ): ApiPromise<{ id: string; deleted: boolean; deleted_at: string }> {
    return this.transport.call(
      // Its `status` is its enable flag (enabled/disabled), not a word of its deletion (review19d F2).
      { ...this.#one('DELETE', id, WebhookDeleted), gone: { ended: ['deleted'], own: WEBHOOK_STATUSES } },
      options,
    );
  }

  /** A new signing secret; the previous one keeps signing too until `previous_secret_expires_at`. */
  rotateSecret(id: string, options?: CallOptions): ApiPromise<WebhookWithSecret> {
    const operation = {
      method: 'POST',
      path: path`/v1/webhooks/${id}/rotate-secret`,
      schema: WebhookWithSecret,
      notFound: WebhookNotFoundError,
      about: { id },
      // Its secret_rotated_at says whether an answer svc could not read was a rotation made.
      check: shownBy('webhooks get', id),
    } as const;
    return this.transport.call(operation, options);
  }

  /** Undoes the last rotation while the replaced secret still signs (the sandbox's restore-secret). */
  restoreSecret(id: string, options?: CallOptions): ApiPromise<Webhook> {
    const operation = {
      method: 'POST',
      path: webhookPaths.restoreSecret(id),
      schema: Webhook,
      notFound: WebhookNotFoundError,
      about: { id },
      // Its secret_rotated_at, back to the rotation's before, says whether an unread answer's was made.
      check: shownBy('webhooks get', id),
    } as const;
    return this.transport.call(operation, options);
  }

  /** Sends a test event (webhook.test unless another kind is named) and returns its delivery. */
  test(
    id: string,
    body: { event_type?: EventType } = {},
    options?: CallOptions,
  ): ApiPromise<TestEventResult> {
    const operation = {
      method: 'POST',
      path: path`/v1/webhooks/${id}/test`,
      body,
      schema: TestEventResult,
      notFound: WebhookNotFoundError,
      about: { 'delivery.webhook_id': id },
      // A delivery of another event is not the test's (attack26b F3), though the answer names both.
      inconsistent: (answer: Record<string, unknown>) => {
        const { event, delivery } = answer as unknown as TestEventResult;
        return delivery.event_id === event.id
          ? undefined
          : `is about delivery ${delivery.id} of event ${delivery.event_id}, not of the test event ${event.id} it names`;
      },
      check: shownBy('webhooks deliveries ls', id),
    } as const;
    return this.transport.call(operation, options);
  }

  #one(method: 'GET' | 'PATCH' | 'DELETE', id: string, schema: JsonSchema) {
    return { method, path: webhookPaths.one(id), schema, notFound: WebhookNotFoundError, about: { id } };
  }
}

/** Deliveries of one webhook (`/v1/webhooks/{id}/deliveries`). */
export class Deliveries {
  constructor(private readonly transport: Transport) {}

  /** Recent deliveries, most recent first, with the summary over all of them. */
  list(webhook: string, query: DeliveryListQuery = {}, options?: CallOptions): ApiPromise<DeliveryList> {
    const operation = {
      method: 'GET',
      path: path`/v1/webhooks/${webhook}/deliveries`,
      query,
      schema: DeliveryList,
      notFound: WebhookNotFoundError,
    } as const;
    return this.transport.page(operation, options);
  }

  /** One delivery with its attempts; `event`: the event it is known to carry (a test event's). */
  get(
    webhook: string,
    delivery: string,
    options?: CallOptions,
    event?: string,
  ): ApiPromise<WebhookDeliveryDetail> {
    const operation = {
      method: 'GET',
      path: path`/v1/webhooks/${webhook}/deliveries/${delivery}`,
      schema: WebhookDeliveryDetail,
      notFound: DeliveryNotFoundError,
      about: { id: delivery, webhook_id: webhook, event_id: event },
      lookIn: deliveriesOf(webhook),
    } as const;
    return this.transport.call(operation, options);
  }

  /** The exact bytes the delivery sent (for `svc webhooks verify`): not parsed, not checked. */
  payload(webhook: string, delivery: string, options?: CallOptions): ApiPromise<string> {
    const operation = {
      method: 'GET',
      path: path`/v1/webhooks/${webhook}/deliveries/${delivery}/payload`,
      schema: null,
      notFound: DeliveryNotFoundError,
      lookIn: deliveriesOf(webhook),
    } as const;
    return this.transport.call(operation, options);
  }

  /**
   * A new delivery of the same bytes (rule 1); the answer is the new delivery. `asEntry`: replay it
   * as that dead-letter entry, only while the entry is queued (else DlqEntryNotQueuedError).
   */
  replay(
    webhook: string,
    delivery: string,
    options?: CallOptions,
    asEntry?: string,
  ): ApiPromise<WebhookDelivery> {
    const operation = {
      method: 'POST',
      path: path`/v1/webhooks/${webhook}/deliveries/${delivery}/replay`,
      ...(asEntry === undefined ? {} : { body: { dlq_entry_id: asEntry } }),
      schema: WebhookDelivery,
      notFound: DeliveryNotFoundError,
      lookIn: deliveriesOf(webhook),
      // A new delivery of this webhook replaying this one (attack26b F4), or this one itself with
      // its attempts renewed (rule 1: a replay resets the retry counter; review26a M1), never this
      // one as it was, failed (its attempts used up, or its webhook stopped).
      about: { webhook_id: webhook, replay_of: delivery },
      notAbout: { id: delivery },
      renewed: attemptsRenewed,
      check: shownBy('webhooks deliveries ls', webhook),
    } as const;
    return this.transport.call(operation, options);
  }
}

/**
 * A delivery's answer shows it renewed (rule 1: a replay resets the retry counter): a retry
 * scheduled (next_retry_at), or attempts left (attempt_count below max_attempts) while it is not
 * failed. A failed delivery is the one replayed as it was, whatever its counts: dead-lettered, its
 * attempts used up, or its webhook stopped before the next one (webhook_stopped, attempts left).
 * Counts the answer does not give show nothing (the schema requires both).
 */
export function attemptsRenewed(delivery: Record<string, unknown>): boolean {
  if (delivery.next_retry_at !== null && delivery.next_retry_at !== undefined) return true;
  if (typeof delivery.status === 'string' && delivery.status.toLowerCase() === 'failed') return false;
  const { attempt_count: count, max_attempts: max } = delivery;
  return typeof count === 'number' && typeof max === 'number' && count < max;
}

/**
 * A page of a dead-letter queue. `total` (how many entries match, over every page) is the
 * sandbox's: the reference shows no body for the listing, so another server may leave it out.
 */
export type DlqPage = Omit<DlqList, 'total'> & { total?: number };

/** Entries counted a page at a time when a server gives no `total` (count()). */
const COUNT_PAGE = 200;

/** The dead-letter queue of one webhook (`/v1/webhooks/{id}/dlq`), oldest first. */
export class DeadLetters {
  constructor(private readonly transport: Transport) {}

  list(webhook: string, query: DlqListQuery = {}, options?: CallOptions): ApiPromise<DlqPage> {
    return this.transport.page(this.#queue(webhook, query), options);
  }

  /** Every entry matching the query; `onPage` sees each page first (its `total`, when the server gives one). */
  listAll(
    webhook: string,
    query: DlqListQuery = {},
    options?: CallOptions,
    onPage?: (page: DlqPage) => void,
  ): AsyncGenerator<DlqEntry> {
    // A drain counts each entry once and lists the queue again until it settles (queue.ts): a
    // page repeating an entry of the page before (an offset over a queue that moved) passes.
    const queue = { ...this.#queue(webhook, query), repeats: 'counted once' } as const;
    return this.transport.all<DlqEntry, DlqPage>(queue, options, onPage);
  }

  /**
   * How many entries match the query now: the server's `total` (one request for one entry), or,
   * from a server that gives none, the distinct entries of a whole listing (an entry a page
   * repeats counts once).
   */
  async count(webhook: string, query: DlqListQuery = {}, options?: CallOptions): Promise<number> {
    const { limit: _, ...filters } = query;
    const first = await this.list(webhook, { ...filters, limit: 1 }, options);
    if (first.total !== undefined) return first.total;
    const ids = new Set<string>();
    for await (const entry of this.listAll(webhook, { ...filters, limit: COUNT_PAGE }, options))
      ids.add(itemKey(entry) ?? entry.id);
    return ids.size;
  }

  get(webhook: string, entry: string, options?: CallOptions): ApiPromise<DlqEntry> {
    return this.transport.call(this.#entry('GET', webhook, entry), options);
  }

  /** Removes an entry from the queue (it stays readable as `discarded`). */
  discard(webhook: string, entry: string, options?: CallOptions): ApiPromise<DlqEntry> {
    return this.transport.call(this.#entry('DELETE', webhook, entry), options);
  }

  #queue(webhook: string, query: DlqListQuery) {
    return {
      method: 'GET',
      path: path`/v1/webhooks/${webhook}/dlq`,
      query,
      schema: DlqList,
      notFound: WebhookNotFoundError,
    } as const;
  }

  #entry(method: 'GET' | 'DELETE', webhook: string, entry: string) {
    return {
      method,
      path: path`/v1/webhooks/${webhook}/dlq/${entry}`,
      schema: DlqEntry,
      notFound: DlqEntryNotFoundError,
      lookIn: deadLettersOf(webhook),
      about: { id: entry, webhook_id: webhook },
      ...(method === 'DELETE' ? { gone: { ended: ['discarded'] } } : {}),
    };
  }
}
