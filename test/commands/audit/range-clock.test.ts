import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { createWebhook } from '../../helpers/webhooks.js';

// Finding M4 (review-c, s11): `--since 1h --until 2h` (both durations) was refused naming
// instants on this machine's clock, hours off the platform times every other message of these
// commands names. The durations are counted on the platform's clock first, then the range checked.
const svc = useSandboxContext();
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

function refusal(stderr: string): { since: number; until: number } {
  const match = /^error: --since \((\S+)\) must be before --until \((\S+)\)$/m.exec(stderr);
  expect(match, stderr).not.toBeNull();
  return { since: Date.parse(match![1]!), until: Date.parse(match![2]!) };
}

describe('--since and --until both durations, in the wrong order', () => {
  it.each([
    ['audit ls', () => ['audit', 'ls', '--since', '1h', '--until', '2h']],
    [
      'dlq discard --all',
      (webhook: string) => [
        'webhooks',
        'dlq',
        'discard',
        webhook,
        '--all',
        '--since',
        '1h',
        '--until',
        '2h',
        '--dry-run',
      ],
    ],
  ])('%s is refused naming the platform times', async (_name, argv) => {
    const webhook = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none')).id;
    const platform = await sandboxNow(svc.sandbox());
    // This machine's clock 10 h behind the platform's.
    const r = await svc.run(argv(webhook), { now: platform - 10 * HOUR });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const { since, until } = refusal(r.stderr);
    expect(Math.abs(since - (platform - HOUR))).toBeLessThan(5000);
    expect(Math.abs(until - (platform - 2 * HOUR))).toBeLessThan(5000);
    expect(r.stderr).not.toContain(iso(platform - 11 * HOUR).slice(0, 13));
    // Nothing of a run is left behind: no journal.
    const state = svc.env().SVC_STATE_DIR!;
    expect(existsSync(state) ? readdirSync(state, { recursive: true }) : []).toEqual([]);
  });
});
