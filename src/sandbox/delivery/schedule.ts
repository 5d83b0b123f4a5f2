/**
 * The retry schedule (the reference leaves it "not shown"; this is the sandbox's). After failed
 * attempt n (1-based) the next attempt is due after
 *
 *   min(30 s × 2^(n−1), 1 h) × a random factor in [0.8, 1.2) × time_scale
 *
 * so with the default max_attempts of 5: about 30 s, 1 min, 2 min and 4 min between attempts
 * (7.5 min from the first to the last). time_scale (SandboxOptions.webhooks.timeScale,
 * `svc sandbox start --webhook-time-scale`) shrinks the whole schedule for tests and demos:
 * 0.001 turns those minutes into milliseconds. Delays are measured on the sandbox clock, so
 * moving it forward (POST /_sandbox/clock) makes due retries run at once.
 */
export const RETRY_BASE_SECONDS = 30;
export const RETRY_CAP_SECONDS = 3600;
export const RETRY_JITTER = 0.2;

export function nominalRetrySeconds(failedAttempt: number): number {
  return Math.min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2 ** Math.max(0, failedAttempt - 1));
}

export function retryDelayMs(failedAttempt: number, timeScale: number, random: () => number): number {
  const factor = 1 - RETRY_JITTER + 2 * RETRY_JITTER * random();
  return Math.round(nominalRetrySeconds(failedAttempt) * 1000 * factor * timeScale);
}

/** The schedule as text, for documentation and `GET /_sandbox/webhooks/engine`. */
export function describeSchedule(maxAttempts: number): string[] {
  const lines: string[] = [];
  for (let n = 1; n < maxAttempts; n++) {
    lines.push(`after attempt ${n}: ${nominalRetrySeconds(n)} s ±${RETRY_JITTER * 100}%`);
  }
  return lines;
}
