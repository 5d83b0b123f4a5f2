import { type AttemptOutcome, classifyError, classifyResponse } from './classify.js';
import type { Dispatcher } from './http.js';

const USER_AGENT = 'svc-sandbox-webhooks/1';
/** How much of a target's answer is read (to find "invalid_signature" and for last_error). */
const ANSWER_BYTES = 4096;

export interface AttemptRequest {
  url: string;
  payload: Buffer;
  /** The signature and X-SVC-* headers of this attempt. */
  headers: Record<string, string>;
  /** Limit for the whole attempt, connection to last byte of the answer. */
  timeoutMs: number;
}

/**
 * One delivery attempt: a POST of the payload to the target, answered or not within the timeout,
 * classified (classify.ts) — never thrown: every failure becomes an outcome with its cause.
 */
export async function sendAttempt(agent: Dispatcher, attempt: AttemptRequest): Promise<AttemptOutcome> {
  const { timeoutMs } = attempt;
  let url: URL;
  try {
    url = new URL(attempt.url);
  } catch {
    return classifyError(new Error(`invalid URL ${attempt.url}`), false, timeoutMs);
  }
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const response = await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...attempt.headers },
      body: attempt.payload,
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const answer = await readSome(response.body, ANSWER_BYTES);
    return classifyResponse(response.statusCode, answer);
  } catch (error) {
    return classifyError(error, timedOut, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

/** The first `limit` bytes of an answer as text; the rest is read and dropped (keeps the socket reusable). */
async function readSome(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < limit) {
      const buffer = chunk as Buffer;
      chunks.push(buffer.subarray(0, limit - size));
      size += buffer.length;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
