/** CPU of this process (user + system, every thread), in ms, and the probes' output line. */
import { appendFileSync } from 'node:fs';

export const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

export function record(line: Record<string, unknown>): void {
  const out = process.env.FIXED_COSTS_OUT;
  if (out) appendFileSync(out, `${JSON.stringify({ pid: process.pid, ...line })}\n`);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
