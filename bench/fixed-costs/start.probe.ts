/** A warm sandbox's start and close: 3 warm-up starts, then 7 rounds of 10, the median of the rounds' means. */
import { it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { cpuMs, median, record } from './lib.js';

it('measures a warm start', async () => {
  for (let i = 0; i < 3; i++) await (await startSandbox({ port: 0 })).close();
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    const start = cpuMs();
    for (let i = 0; i < 10; i++) await (await startSandbox({ port: 0 })).close();
    rounds.push((cpuMs() - start) / 10);
  }
  record({
    name: process.env.FIXED_COSTS_LABEL ?? 'sandbox start+close',
    ms: +median(rounds).toFixed(2),
    rounds: rounds.map((x) => +x.toFixed(1)),
  });
}, 600_000);
