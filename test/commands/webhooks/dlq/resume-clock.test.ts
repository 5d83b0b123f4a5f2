import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../../src/api/time.js';
import { bulkRunner } from '../../../helpers/bulk.js';
import { call, useSandbox } from '../../../helpers/sandbox.js';
import { createWebhook } from '../../../helpers/webhooks.js';

// Finding M1 (review-c, s11): a resumed `dlq discard --all` / `replay --dlq` warned that the
// platform's clock was as far ahead as at its FIRST run (7 h when it was 10 h), and named the
// run's start on this machine's clock beside entries timed on the platform's. A file of its own:
// it moves the sandbox's clock.
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
const HOUR = 3600;
const moveClock = (seconds: number) =>
  call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: seconds } });
const deadLetter = (webhook: string, count: number) =>
  call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', { body: { webhook_id: webhook, count } });

describe('a resumed queue run with the platform clock moved on since its first run', () => {
  it('says the gap as it is now and as it was, and names the run start on the platform clock', async () => {
    const webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
    await moveClock(7 * HOUR);
    await deadLetter(webhook, 3);
    const argv = ['webhooks', 'dlq', 'discard', webhook, '--all', '--yes', '--since', '1h'];
    const full = await svc.run(argv, { stdoutFails: 'ENOSPC' });
    expect(full.code, full.stderr).toBe(1);
    expect(full.stderr.split('\n')[0]).toBe(
      "warning: the platform's clock is 7 h ahead of this machine's; --since was counted from the platform's time",
    );
    const [name] = existsSync(svc.journals) ? readdirSync(svc.journals) : [];
    const header = JSON.parse(readFileSync(join(svc.journals, name!), 'utf8').split('\n')[0]!);
    // The run's start on the platform's clock, as its journal keeps it (its window's second; the
    // anchor its --since counts from is taken before the count, the same second or one before).
    const anchorMs = Date.parse(header.platform_started_at);
    expect(Math.abs(anchorMs - Date.parse(header.anchor))).toBeLessThanOrEqual(1000);

    // Every item was done before stdout failed: the run is shown again, its end said (s24).
    const allDone = readFileSync(join(svc.journals, name!), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"all_done"'))
      .map((line) => JSON.parse(line).all_done)[0];
    await moveClock(3 * HOUR);
    await deadLetter(webhook, 2);
    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(0);
    const lines = again.stderr.split('\n');
    expect(lines[0]).toBe(
      "warning: the platform's clock is 10 h ahead of this machine's (7 h ahead when the run first started); --since was counted from the platform's time then",
    );
    expect(lines.filter((l) => l.startsWith('warning:'))).toHaveLength(1);
    expect(again.stderr).toContain(
      `2 entries dead-lettered since the run started (${isoSeconds(anchorMs)}) are not part of it: run the same command again to discard them (a new run)\n`,
    );
    expect(again.stderr).not.toContain(`(${header.started_at})`);
    // Oncall s11, 4: the resuming line named the same start on this machine's clock alone.
    expect(lines.find((l) => l.startsWith('showing again'))).toBe(
      `showing again the run started at ${isoSeconds(anchorMs)} on the platform's clock (${header.started_at} on this machine's; it finished at ${allDone}, every item done): 3 done, 0 to do (journal ${join(svc.journals, name!)})`,
    );
  });
});
