import type { EventType } from '../api/constants.js';
import { path } from '../http/path.js';
import type { ApiPromise } from './api-promise.js';
import type { JsonSchema } from './check.js';
import { WebhookNotFoundError } from './errors.js';
import type { CallOptions, Transport } from './transport.js';

/**
 * The sandbox's test controls under /_sandbox (not platform API: `svc sandbox …` verbs drive
 * them). They take no idempotency key; a server that is not a sandbox answers 404.
 */
export interface EmittedEvents {
  count: number;
  deliveries: number;
  events: Array<{ id: string; type: string; delivery_ids: string[] }>;
  truncated: boolean;
}

export interface TargetFaultState {
  webhook_id: string;
  fault: 'none' | 'status' | 'timeout' | 'refused' | 'tls';
  status_code: number | null;
}

const Emitted: JsonSchema = {
  type: 'object',
  required: ['count', 'deliveries', 'events'],
  properties: {
    count: { type: 'integer' },
    deliveries: { type: 'integer' },
    events: { type: 'array', items: { type: 'object', required: ['id', 'delivery_ids'] } },
    truncated: { type: 'boolean' },
  },
};

const TargetFault: JsonSchema = {
  type: 'object',
  required: ['webhook_id', 'fault'],
  properties: {
    webhook_id: { type: 'string' },
    fault: { type: 'string' },
    status_code: { type: ['integer', 'null'] },
  },
};

export class SandboxControls {
  constructor(private readonly transport: Transport) {}

  /** Emits `count` events of a kind to one webhook, or to every subscribed webhook of a tenant. */
  emitEvents(
    body: { type: EventType | string; webhook_id?: string; tenant_id?: string; count?: number },
    options?: CallOptions,
  ): ApiPromise<EmittedEvents> {
    const operation = {
      method: 'POST',
      path: '/_sandbox/webhooks/events',
      body,
      schema: Emitted,
      notFound: WebhookNotFoundError,
      idempotencyKey: false,
    } as const;
    return this.transport.call(operation, options);
  }

  targetFault(webhook: string, options?: CallOptions): ApiPromise<TargetFaultState> {
    const operation = {
      method: 'GET',
      path: path`/_sandbox/webhooks/${webhook}/target-fault`,
      schema: TargetFault,
      notFound: WebhookNotFoundError,
    } as const;
    return this.transport.call(operation, options);
  }

  /** Makes the webhook's target fail as `fault` says, or (`none`) sends to it again. */
  setTargetFault(
    webhook: string,
    body: { fault: TargetFaultState['fault']; status_code?: number },
    options?: CallOptions,
  ): ApiPromise<TargetFaultState> {
    const operation = {
      method: 'PUT',
      path: path`/_sandbox/webhooks/${webhook}/target-fault`,
      body,
      schema: TargetFault,
      notFound: WebhookNotFoundError,
    } as const;
    return this.transport.call(operation, options);
  }
}
