/**
 * Which answers tell svc a server's clock, and by how much it is off this machine's (review22c F4).
 * The platform's clock is learnt from answers' Date headers (HttpClient.serverClockOffsetMs) and
 * measures relative times on a terminal, `--expires-in` anchors and `auth token`'s judgement; a
 * token endpoint's Date puts a JWT's `exp` on this machine's clock (auth/token-endpoint.ts).
 */
import { httpDate } from './http-date.js';

/**
 * How far the clock behind an answer's `date` is ahead of `nowMs` (ms; negative: behind), when the
 * answer is fresh: no `Age`, or `Age: 0`. An answer a cache held keeps the origin's Date from when
 * it was made (RFC 9111 §4.2.3: its age is `Age` plus the time in transit), so its Date is that
 * long behind the clock; Age is the caches' own sum of seconds, so svc does not add it back but
 * learns nothing from such an answer (an earlier fresh answer's clock stands). undefined: no Date
 * svc can read, or a cached answer.
 */
export function answerClockOffset(
  date: string | undefined,
  age: string | undefined,
  nowMs: number,
): number | undefined {
  if (answerAge(age) !== 0) return undefined;
  const server = httpDate(date, nowMs);
  return Number.isFinite(server) ? server - nowMs : undefined;
}

/**
 * Whether an answer to a request for `url` speaks for the platform's clock: one from the base URL's
 * origin (not a token endpoint of another host, an identity provider with its own clock), and
 * neither a proxy's own (407) nor a failure a gateway, load balancer or CDN in front of the API
 * answers with its own Date (a 5xx: 502 and 504 are a gateway's by definition, a 503 or a CDN's 52x
 * often are). The API's own successes and refusals are the clock's evidence; a run whose only
 * answers are 5xx measures from this machine's clock, as one that had no answer.
 */
export function speaksForPlatform(url: URL, baseUrl: string, status: number): boolean {
  if (status >= 500 || status === 407) return false;
  try {
    return url.origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}

/**
 * The seconds a cache held an answer, by its `Age` (RFC 9111 §5.1, delta-seconds): 0 without one
 * (fresh); undefined when it is not delta-seconds (held, for how long unsaid).
 */
export function answerAge(age: string | undefined): number | undefined {
  if (age === undefined) return 0;
  const seconds = age.trim();
  return /^\d+$/.test(seconds) ? Number(seconds) : undefined;
}
