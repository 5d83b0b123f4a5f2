/**
 * A recovered delivery (it failed, then its event was delivered by a replay of it): `deliveries
 * get` shows the error and cause it had, and a remedy line that says none is needed, by which
 * delivery, and that a replay would send the event again; so does `dlq get` of a recovered entry
 * (one rule, failureRemedy), which gave the cause's remedy ("check its logs").
 * Session 19 dropped the line (6393871c); before, it gave the failure's remedy, which for a
 * stopped webhook said "replay the delivery from the dead-letter queue": a second delivery.
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { deadLetteredQueue } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
const proxy = useReshapingProxy(sandbox);

/** The error, cause and remedy lines of a record printed for a pipe. */
const failureLines = (stdout: string) =>
  stdout.split('\n').filter((l) => /^(status|error|cause|remedy)\t/.test(l));

describe('a recovered delivery, read back', () => {
  it('deliveries get: the error and cause it had, and "remedy none" naming the delivery that delivered it', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    const { delivery_id: delivery } = entries[0]!;
    const replayed = await svc.run(['webhooks', 'replay', webhook, delivery, '--wait', '--yes', '--json']);
    expect(replayed.code, replayed.stderr).toBe(0);
    const by = JSON.parse(replayed.stdout)[0].new_delivery_id as string;
    const read = await svc.run(['webhooks', 'deliveries', 'get', webhook, delivery, '--json']);
    const { last_error, last_error_code } = JSON.parse(read.stdout) as Record<string, string>;
    expect(last_error_code).toMatch(/^\w+$/);
    const remedy = `remedy\tnone: its event was delivered since, by ${by}; replaying it would send the event again`;

    const got = await svc.run(['webhooks', 'deliveries', 'get', webhook, delivery]);
    expect(got.code, got.stderr).toBe(0);
    expect(failureLines(got.stdout)).toEqual([
      'status\trecovered',
      `error\t${last_error}`,
      `cause\t${last_error_code}`,
      remedy,
    ]);
  });

  it('dlq get of an entry recovered (as another server, or a later replay, says it): the same remedy line, by the same rule', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    const { id: entry } = entries[0]!;
    const by = 'dlv_0123456789abcdef01234567';
    const listed = await svc.run(['webhooks', 'dlq', 'get', webhook, entry, '--json']);
    const { last_error, last_error_code } = JSON.parse(listed.stdout) as Record<string, string>;
    proxy().set({
      reshape: (answer: Reshaped) => {
        const body = answer.body as Record<string, unknown> | null;
        if (answer.path.includes('/dlq/') && body !== null && typeof body === 'object' && body.id === entry)
          Object.assign(body, { status: 'recovered', recovered_by: by });
      },
    });
    const dlq = await svc.run(['webhooks', 'dlq', 'get', webhook, entry], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(dlq.code, dlq.stderr).toBe(0);
    expect(failureLines(dlq.stdout)).toEqual([
      'status\trecovered',
      `error\t${last_error}`,
      `cause\t${last_error_code}`,
      `remedy\tnone: its event was delivered since, by ${by}; replaying it would send the event again`,
    ]);
  });
});
