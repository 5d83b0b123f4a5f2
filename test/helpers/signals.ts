import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether `signal` is pending for `pid` (sent, not yet taken), by /proc/PID/status; false once it is gone. */
function pending(pid: number, signal: NodeJS.Signals): boolean {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return false;
  }
  const bit = 1n << BigInt(constants.signals[signal] - 1);
  return [...status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gim)].some(
    (m) => (BigInt(`0x${m[1]}`) & bit) !== 0n,
  );
}

/**
 * Sends `signal` to a spawned process and resolves once the process has taken it (no longer pending
 * in /proc/PID/status: its handler has it), so the next one is not merged into it. The kernel keeps
 * one pending signal of a kind: two Ctrl-Cs sent "150 ms apart" to a process a loaded machine did
 * not run in between arrive as one. The bound is far above need and never part of an assertion.
 */
export async function signalTaken(
  child: ChildProcess,
  signal: NodeJS.Signals,
  timeoutMs = 30_000,
): Promise<void> {
  if (!child.pid || child.exitCode !== null) throw new Error(`the process has exited; ${signal} not sent`);
  child.kill(signal);
  const deadline = Date.now() + timeoutMs;
  while (pending(child.pid, signal)) {
    if (Date.now() > deadline) throw new Error(`${signal} still pending after ${timeoutMs} ms`);
    await sleep(5);
  }
}
