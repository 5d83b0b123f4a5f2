import type { Headers, Outcome } from './client.js';
import { redactBody, redactHeader, redactUrl, scrubSecrets } from './redact.js';

const BODY_LIMIT = 4096;

export interface Tracer {
  request(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | Buffer | undefined,
    contentType: string | undefined,
    attempt: number,
    secrets: string[],
  ): void;
  response(outcome: Outcome, elapsedMs: number, secrets: string[]): void;
  failure(reason: string, elapsedMs: number): void;
}

/**
 * The --debug trace: method, URL, status, timing, headers and bodies on stderr, curl style,
 * with every credential masked by name (headers, secret-looking fields) and by value.
 */
export function createTracer(write: (text: string) => void): Tracer {
  let lastSecrets: string[] = [];
  const emit = (lines: string[], secrets: string[]) => write(`${scrubSecrets(lines.join('\n'), secrets)}\n`);
  return {
    request(method, url, headers, body, contentType, attempt, secrets) {
      lastSecrets = secrets;
      const lines = [`* ${method} ${redactUrl(url)}${attempt > 1 ? ` (attempt ${attempt})` : ''}`];
      for (const [name, value] of Object.entries(headers))
        lines.push(`> ${name}: ${redactHeader(name, value)}`);
      if (body !== undefined) lines.push(`> ${clip(redactBody(body.toString(), contentType))}`);
      emit(lines, secrets);
    },
    response(outcome, elapsedMs, secrets) {
      const lines = [`< ${outcome.status} ${outcome.statusText} in ${elapsedMs.toFixed(0)} ms`];
      for (const [name, value] of Object.entries(outcome.headers as Headers)) {
        for (const v of Array.isArray(value) ? value : [value]) {
          if (v !== undefined) lines.push(`< ${name}: ${redactHeader(name, v)}`);
        }
      }
      const type = outcome.headers['content-type'];
      if (outcome.text !== '') {
        lines.push(`< ${clip(redactBody(outcome.text, typeof type === 'string' ? type : undefined))}`);
      }
      emit(lines, secrets);
    },
    failure(reason, elapsedMs) {
      emit([`! ${reason} after ${elapsedMs.toFixed(0)} ms; retrying`], lastSecrets);
    },
  };
}

function clip(text: string): string {
  return text.length > BODY_LIMIT ? `${text.slice(0, BODY_LIMIT)}… (${text.length} bytes)` : text;
}
