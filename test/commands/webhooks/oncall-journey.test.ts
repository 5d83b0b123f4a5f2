import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { startTarget } from '../../helpers/targets.js';
import { useTempDir } from '../../helpers/temp.js';
import { ANSWERED_TIMEOUT_MS } from '../../helpers/webhooks.js';

// Issue 13, on call at 3 a.m., end to end with svc verbs only: a target goes down (the sandbox
// makes it fail), events fail and are dead-lettered; why is in human output, with the remedy;
// replaying while it is still down exits 7 naming the failures; once it is back, the replay
// delivers, the summary counts the failures as recovered, and a payload verifies as sent.
// The target answers: the request timeout is far above need (ANSWERED_TIMEOUT_MS).
const svc = useSandboxContext({ webhooks: { timeScale: 0.0002, requestTimeoutMs: ANSWERED_TIMEOUT_MS } });
const dir = useTempDir('svc-oncall-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const live = { now: Date.now() };
const settle = () =>
  call(svc.sandbox(), 'POST', '/_sandbox/webhooks/settle', { body: { timeout_ms: 20_000 } });

// A failure the sandbox injected is mended by the sandbox, not the target's logs (attack25a F10).
const injected = (webhook: string) =>
  `the sandbox injected this failure: recover the target with svc sandbox target ${webhook} --recover; a delivery in the dead-letter queue is then replayed with svc webhooks replay ${webhook} --dlq`;

describe('the on-call journey', () => {
  it('target down → failures explained → replay still failing (exit 7) → target back → recovered', async () => {
    const target = await startTarget(() => ({ status: 200 }));
    const secretFile = join(dir, 'whsec');
    const made = await svc.run([
      'webhooks',
      'create',
      '--url',
      target.url,
      '--event-type',
      'exception.sla.breached',
      '--max-attempts',
      '2',
      '--secret-file',
      secretFile,
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const webhook = JSON.parse(made.stdout).id as string;

    const down = await svc.run(['sandbox', 'target', webhook, '--fail', '503']);
    expect([down.code, down.stderr]).toEqual([
      0,
      `✓ ${webhook}: every attempt fails as if the target answered 503\n`,
    ]);
    const sent = await svc.run([
      'sandbox',
      'trigger',
      'exception.sla.breached',
      '--webhook',
      webhook,
      '--count',
      '3',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toBe(
      `✓ 3 events emitted, 3 deliveries to ${webhook}; follow them with: svc webhooks deliveries ${webhook}\n`,
    );
    await settle();

    const listed = await svc.run(['webhooks', 'deliveries', webhook, '--status', 'failed'], live);
    // A pipe gets the rows alone (the counts head a terminal's table; --summary prints them).
    expect(listed.stderr).toBe('');
    const failed = listed.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t')[0]!);
    const shown = await svc.run(['webhooks', 'deliveries', 'get', webhook, failed[0]!], live);
    expect(shown.stdout).toContain(
      'error\t5xx_server_error: the target answered 503 Service Unavailable, injected by the sandbox (svc sandbox target)\n' +
        `cause\t5xx_server_error\nremedy\t${injected(webhook)}\n`,
    );
    const entry = await svc.run(['webhooks', 'dlq', 'ls', webhook, '--json']);
    const entries = JSON.parse(entry.stdout);
    expect(entries).toHaveLength(3);
    const oneEntry = await svc.run(['webhooks', 'dlq', 'get', webhook, entries[0].id], live);
    expect(oneEntry.stdout).toContain(`remedy\t${injected(webhook)}\n`);

    const stillDown = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--wait', '--yes'], live);
    expect(stillDown.code).toBe(7);
    expect(stillDown.stderr).toMatch(/5xx_server_error/);
    expect(target.received).toHaveLength(0);

    const back = await svc.run(['sandbox', 'target', webhook, '--recover']);
    expect(back.stderr).toBe(`✓ ${webhook}: attempts go to the target\n`);
    const replayed = await svc.run(
      ['webhooks', 'replay', webhook, ...failed, '--wait', '--yes', '--json'],
      live,
    );
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(target.received).toHaveLength(3);
    const summary = await svc.run(['webhooks', 'deliveries', webhook, '--summary'], live);
    // Every failed delivery of an event that reached the target since is recovered: the originals
    // and the replays that failed while it was down; nothing is left in the queue to replay twice.
    expect([summary.stdout, summary.stderr]).toEqual([
      'total\t9\ndelivered\t3\nfailed\t0\nrecovered\t6\nin flight\t0\n',
      '',
    ]);
    const json = JSON.parse(
      (await svc.run(['webhooks', 'deliveries', webhook, '--summary', '--json'])).stdout,
    );
    expect(json).toEqual({ total: 9, delivered: 3, failed: 0, in_flight: 0, recovered: 6 });
    const queue = await svc.run(['webhooks', 'dlq', 'ls', webhook, '--json']);
    expect(JSON.parse(queue.stdout)).toEqual([]);

    // The payload, byte for byte, verifies against the signature the target received.
    const payload = await svc.run(['webhooks', 'deliveries', 'get', webhook, failed[0]!, '--payload']);
    const received = target.received.find((r) => r.body.toString() === payload.stdout)!;
    expect(received).toBeDefined();
    const verified = await svc.run(
      [
        'webhooks',
        'verify',
        '--secret-file',
        secretFile,
        '--header',
        String(received.headers['x-svc-signature']),
        '--payload',
        '-',
        '--json',
      ],
      { stdin: payload.stdout, now: Date.now() },
    );
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout).valid).toBe(true);
    expect(readFileSync(secretFile, 'utf8')).toMatch(/^whsec_/);
    await target.close();
  });
});
