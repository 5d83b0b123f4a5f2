/** A FIFO with O(1) push and shift (Array#shift is O(n), and a lane may hold 100,000 items). */
class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  shift(): T | undefined {
    if (this.#head === this.#items.length) return undefined;
    const item = this.#items[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}

interface Lane<T> {
  webhookId: string;
  tenant: TenantLanes<T>;
  ready: Fifo<T>;
  inFlight: number;
  /** In its tenant's rotation. */
  queued: boolean;
}

interface TenantLanes<T> {
  id: string;
  rotation: Fifo<Lane<T>>;
  inFlight: number;
  /** In the rotation of tenants. */
  queued: boolean;
}

export interface FairCaps {
  /** Attempts in flight per webhook. */
  webhook: number;
  /** Attempts in flight per tenant, across its webhooks. */
  tenant: number;
}

/**
 * Attempts that are due, waiting for a slot: one lane per webhook, served round-robin across
 * tenants and, within a tenant, across its webhooks, each lane and each tenant holding at most
 * its cap of attempts in flight. A target that hangs therefore keeps at most `caps.webhook`
 * slots busy until its attempts time out, and every other webhook is served in the next
 * rotation: it waits for one turn, never for a timeout.
 */
export class FairQueue<T> {
  readonly #caps: () => FairCaps;
  readonly #lanes = new Map<string, Lane<T>>();
  readonly #tenants = new Map<string, TenantLanes<T>>();
  readonly #rotation = new Fifo<TenantLanes<T>>();
  #size = 0;

  constructor(caps: () => FairCaps) {
    this.#caps = caps;
  }

  /** Items waiting (not in flight). */
  get size(): number {
    return this.#size;
  }

  push(webhookId: string, tenantId: string, item: T): void {
    let lane = this.#lanes.get(webhookId);
    if (!lane) {
      let tenant = this.#tenants.get(tenantId);
      if (!tenant) {
        tenant = { id: tenantId, rotation: new Fifo(), inFlight: 0, queued: false };
        this.#tenants.set(tenantId, tenant);
      }
      lane = { webhookId, tenant, ready: new Fifo(), inFlight: 0, queued: false };
      this.#lanes.set(webhookId, lane);
    }
    lane.ready.push(item);
    this.#size++;
    this.#offer(lane);
  }

  /** The next item whose webhook and tenant have room, now counted in flight; undefined when none has. */
  take(): T | undefined {
    const caps = this.#caps();
    for (;;) {
      const tenant = this.#rotation.shift();
      if (!tenant) return undefined;
      tenant.queued = false;
      if (tenant.inFlight >= caps.tenant) continue; // offered again when one of its attempts ends
      const lane = tenant.rotation.shift();
      if (!lane) continue;
      lane.queued = false;
      const item = lane.inFlight < caps.webhook ? lane.ready.shift() : undefined;
      if (item !== undefined) {
        this.#size--;
        lane.inFlight++;
        tenant.inFlight++;
      }
      this.#offer(lane);
      this.#offerTenant(tenant);
      if (item !== undefined) return item;
    }
  }

  /** An item taken from this webhook's lane is no longer in flight. */
  done(webhookId: string): void {
    const lane = this.#lanes.get(webhookId);
    if (!lane) return;
    lane.inFlight--;
    lane.tenant.inFlight--;
    this.#offer(lane);
    this.#offerTenant(lane.tenant);
  }

  /** After the caps changed: lanes that were full may have room now. */
  reoffer(): void {
    for (const lane of this.#lanes.values()) this.#offer(lane);
  }

  #offer(lane: Lane<T>): void {
    if (lane.queued || lane.ready.size === 0 || lane.inFlight >= this.#caps().webhook) return;
    lane.queued = true;
    lane.tenant.rotation.push(lane);
    this.#offerTenant(lane.tenant);
  }

  #offerTenant(tenant: TenantLanes<T>): void {
    if (tenant.queued || tenant.rotation.size === 0 || tenant.inFlight >= this.#caps().tenant) return;
    tenant.queued = true;
    this.#rotation.push(tenant);
  }
}
