/**
 * `svc webhooks listen … | head -1` (findings pipes15 F5): a listener whose stdout's reader has gone
 * stops as on Ctrl-C — it stops accepting (later deliveries fail and the platform retries them),
 * puts --webhook W back, says so and exits 141, naming the request whose line was lost (answered
 * 503 once its line could not be written, so the platform retries it) — instead of acknowledging every later delivery with nobody
 * reading. With --capture (or --forward-to) keeping what arrives, it warns once and goes on.
 * In-process over a stdout that takes one line, then fails every write with EPIPE.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, startInProcess } from '../../helpers/context.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { held } from '../../helpers/signal-holds.js';
import { useTempDir } from '../../helpers/temp.js';
import { createWebhook, delivery, emit, webhookNow } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const tmp = useTempDir('svc-listen-closed-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const headOne = { stdoutFails: 'EPIPE', stdoutFailsAfter: 1, now: Date.now() };

describe('svc webhooks listen --webhook W | head -1', () => {
  it('stops once the reader has gone: W is put back, exit 141, the lost line named', async () => {
    const original = 'http://127.0.0.1:9/none';
    const { id } = await createWebhook(svc.sandbox(), original);
    const run = startInProcess(
      ['webhooks', 'listen', '--webhook', id, '--port', '0', '--ndjson'],
      svc.env(),
      headOne,
    );
    await run.waitForStderr(new RegExp(`webhook ${id} delivers here`));
    const first = (await emit(svc.sandbox(), id, 1)).events[0]!.delivery_ids[0]!;
    await expect.poll(run.stdout, { timeout: 10_000 }).toContain(first);
    const second = (await emit(svc.sandbox(), id, 1)).events[0]!.delivery_ids[0]!;
    // No Ctrl-C: the listener ends by itself.
    const r = await run.done;
    expect(r.code, r.stderr).toBe(141);
    // Its stop, made by AbortSignal.any, stayed listed on the command's signal (Node 20).
    expect(held(run.signal)).toEqual({ dependants: 0, listeners: 0 });
    expect(JSON.parse(r.stdout)).toMatchObject({ delivery_id: first, valid: true, status: 200 });
    expect((await webhookNow(svc.sandbox(), id)).url).toBe(original);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.slice(-3, -1)).toEqual([
      `✓ webhook ${id} is back: ${original}, signing with the secret it had before this session (the session's secret no longer works)`,
      'stopped after 2 requests: 2 valid, 0 invalid',
    ]);
    expect(JSON.parse(lines.at(-1)!).error).toEqual({
      code: 'stdout_closed',
      message: `stdout closed, so the listener stopped (later deliveries fail and the platform retries them): 1 request answered was not printed (${second}#1)`,
      exit_code: 141,
      // Its line could not be written, so it was not acknowledged (s16: it was answered 200 first,
      // then lost, with only a replay command to show for it).
      // The line stdout took is in the pipe, which a reader that left may not have read (review16b
      // B1): that delivery was acknowledged, so it is named with the replay that sends it again.
      hint:
        'that delivery was answered 503, not acknowledged: the platform retries it; ' +
        `the delivery acknowledged (200) last, whose line was in the last 128 KiB handed to stdout, may have been dropped unread by a reader that left (head, grep -m1): ${first}#1; ` +
        `if your reader did not show it, \`svc webhooks replay ${id} ${first}\` sends it again`,
    });
    await expect
      .poll(async () => (await delivery(svc.sandbox(), id, second)).attempt_count, { timeout: 10_000 })
      .toBeGreaterThan(0);
    expect((await delivery(svc.sandbox(), id, second)).status).not.toBe('delivered');
    // A later event is no longer acknowledged by a listener nobody reads.
    const third = (await emit(svc.sandbox(), id, 1)).events[0]!.delivery_ids[0]!;
    await expect
      .poll(async () => (await delivery(svc.sandbox(), id, third)).attempt_count, { timeout: 10_000 })
      .toBeGreaterThan(0);
    expect((await delivery(svc.sandbox(), id, third)).status).not.toBe('delivered');
  }, 30_000);

  it('under -p and --tenant: the replay it names keeps them (attack25a F2)', async () => {
    // Pasted bare, `svc webhooks replay W D` ran in the active profile's tenant: "webhook not found".
    const { id } = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none');
    const env = { ...svc.env(), SVC_TENANT: undefined };
    const made = await runInProcess(['-p', 'ops', 'config', 'set', 'base_url', svc.sandbox().url], env);
    expect(made.code, made.stderr).toBe(0);
    const run = startInProcess(
      [
        '-p',
        'ops',
        '--tenant',
        'acme-treasury',
        'webhooks',
        'listen',
        '--webhook',
        id,
        '--port',
        '0',
        '--ndjson',
      ],
      env,
      headOne,
    );
    await run.waitForStderr(new RegExp(`webhook ${id} delivers here`));
    const first = (await emit(svc.sandbox(), id, 1)).events[0]!.delivery_ids[0]!;
    await expect.poll(run.stdout, { timeout: 10_000 }).toContain(first);
    await emit(svc.sandbox(), id, 1);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(141);
    expect(JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!).error.hint).toContain(
      `if your reader did not show it, \`svc -p ops --tenant acme-treasury webhooks replay ${id} ${first}\` sends it again`,
    );
  }, 30_000);

  // Told late: the write is taken, then fails in a later turn. The delivery was answered 200
  // (--capture keeps it) before; its line is no less lost, and counted so (review24d L3: it was
  // counted printed, "1 request(s)", the error naming fewer than were lost).
  it.each([
    ['at once', false],
    ['late', true],
  ])(
    'with --capture, a failed write told %s: warns once that lines are no longer seen and keeps receiving until Ctrl-C',
    async (_, late) => {
      const { id } = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none');
      const dir = join(tmp, late ? 'captured-late' : 'captured');
      const run = startInProcess(
        ['webhooks', 'listen', '--webhook', id, '--port', '0', '--capture', dir],
        svc.env(),
        { ...headOne, stdoutFailsLate: late },
      );
      await run.waitForStderr(new RegExp(`webhook ${id} delivers here`));
      const ids: string[] = [];
      for (const n of [1, 2, 3]) {
        const sent = (await emit(svc.sandbox(), id, 1)).events[0]!.delivery_ids[0]!;
        ids.push(sent);
        // Delivered means answered 200, and the listener queues the line in the turn it answers
        // (after the capture is whole): the next event is emitted only then, so the lines are
        // queued in the order of `ids`. (Counting the files in the directory was not that: the
        // capture's two temporary files are there too, and the next event was emitted while one was
        // still being saved; two in flight at once could be answered, and printed, in either order.)
        await expect
          .poll(async () => (await delivery(svc.sandbox(), id, sent)).status, { timeout: 10_000 })
          .toBe('delivered');
        expect(readdirSync(dir)).toHaveLength(2 * n);
      }
      // Its stop awaits every queued line's write, told at once or late, before it counts them.
      expect(run.ended()).toBe(false);
      run.interrupt();
      const r = await run.done;
      expect(r.code, r.stderr).toBe(141);
      const warning = `warning: stdout closed: deliveries are no longer printed, but still saved in ${dir}; Ctrl-C stops`;
      expect(r.stderr.split('\n').filter((l) => l.startsWith('warning: stdout'))).toEqual([warning]);
      expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(
        `error: stdout closed while listening: 2 requests answered were not printed (${ids[1]}#1, ${ids[2]}#1); each was still saved in ${dir}`,
      );
    },
    30_000,
  );
});

describe('svc webhooks listen --webhook W with a stalled reader, then Ctrl-C (review16b B2)', () => {
  it('the delivery whose line waited is said printed → 200 but not answered, and counted so; the platform retries it', async () => {
    const original = 'http://127.0.0.1:9/none';
    const { id } = await createWebhook(svc.sandbox(), original);
    let release!: () => void;
    let offered = 0;
    const run = startInProcess(['webhooks', 'listen', '--webhook', id, '--port', '0'], svc.env(), {
      now: Date.now(),
      stdoutHeld: {
        until: new Promise<void>((resolve) => {
          release = resolve;
        }),
        onWrite: () => offered++,
      },
    });
    await run.waitForStderr(new RegExp(`webhook ${id} delivers here`));
    const event = (await emit(svc.sandbox(), id, 1)).events[0]!;
    const first = event.delivery_ids[0]!;
    await expect.poll(() => offered, { timeout: 10_000 }).toBe(1);
    run.interrupt();
    await run.waitForStderr(new RegExp(`webhook ${id} is back`));
    release();
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${first}#1`);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, r.stderr).toContain(
      `warning: ${first}#1 (event ${event.id}) was printed → 200 but got no answer: the listener stopped before stdout took its line; the platform retries it`,
    );
    expect(lines.at(-1)).toBe(
      'stopped after 1 request: 1 valid, 0 invalid, 1 printed but not answered (the sender gave up or the listener stopped first: the platform retries them)',
    );
    await expect
      .poll(async () => (await delivery(svc.sandbox(), id, first)).attempt_count, { timeout: 10_000 })
      .toBeGreaterThan(0);
    expect((await delivery(svc.sandbox(), id, first)).status).not.toBe('delivered');
  });
});

describe('svc webhooks listen --capture with a stalled reader, then Ctrl-C (review24f L3)', () => {
  it('the stop says what it waits for (the lines stdout has not taken), then ends once they are', async () => {
    const original = 'http://127.0.0.1:9/none';
    const { id } = await createWebhook(svc.sandbox(), original);
    let release!: () => void;
    let offered = 0;
    const dir = join(tmp, 'captured-stalled');
    const run = startInProcess(
      ['webhooks', 'listen', '--webhook', id, '--port', '0', '--capture', dir],
      svc.env(),
      {
        now: Date.now(),
        stdoutHeld: {
          until: new Promise<void>((resolve) => {
            release = resolve;
          }),
          onWrite: () => offered++,
        },
      },
    );
    await run.waitForStderr(new RegExp(`webhook ${id} delivers here`));
    const first = (await emit(svc.sandbox(), id, 1)).events[0]!.delivery_ids[0]!;
    await expect.poll(() => offered, { timeout: 10_000 }).toBe(1);
    run.interrupt();
    await run.waitForStderr(/waiting for stdout's reader/);
    release();
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${first}#1`);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('waiting for'))).toEqual([
      "waiting for stdout's reader to take 1 line (Ctrl-C again to exit without it)",
    ]);
    expect(
      lines.indexOf("waiting for stdout's reader to take 1 line (Ctrl-C again to exit without it)"),
    ).toBeGreaterThan(lines.findIndex((l) => l.includes(`webhook ${id} is back`)));
    expect(lines.at(-1)).toMatch(/^stopped after 1 request: 1 valid, 0 invalid/);
  });
});
