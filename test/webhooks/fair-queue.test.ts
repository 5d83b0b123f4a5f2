import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../src/sandbox/delivery/fair-queue.js';

describe('FairQueue', () => {
  const takeAll = (q: FairQueue<string>) => {
    const out: string[] = [];
    for (let item = q.take(); item !== undefined; item = q.take()) out.push(item);
    return out;
  };

  it('serves tenants in turn, then webhooks in turn within a tenant, up to each cap', () => {
    const q = new FairQueue<string>(() => ({ webhook: 2, tenant: 3 }));
    for (let i = 0; i < 100; i++) q.push('hang', 't1', `hang-${i}`);
    q.push('b', 't1', 'b-0');
    q.push('b', 't1', 'b-1');
    q.push('c', 't2', 'c-0');
    // t1 and t2 alternate; within t1, hang and b alternate; hang stops at 2, t1 at 3.
    expect(takeAll(q)).toEqual(['hang-0', 'c-0', 'b-0', 'hang-1']);
    expect(q.size).toBe(99);
    q.done('hang');
    expect(takeAll(q)).toEqual(['b-1']);
    q.done('b');
    q.done('b');
    expect(takeAll(q)).toEqual(['hang-2']);
  });

  it('gives room again when the caps are raised', () => {
    let webhook = 1;
    const q = new FairQueue<number>(() => ({ webhook, tenant: 10 }));
    for (let i = 0; i < 5; i++) q.push('w', 't', i);
    expect([q.take(), q.take()]).toEqual([0, undefined]);
    webhook = 3;
    q.reoffer();
    expect([q.take(), q.take(), q.take()]).toEqual([1, 2, undefined]);
  });
});
