import { sym } from '../output/symbols.js';
import type { Headers, Outcome } from './client.js';
import { redactHeader, redactTracedBody, redactUrl, type SecretRegistry } from './redact.js';

const BODY_LIMIT = 4096;

export interface Tracer {
  request(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | Buffer | undefined,
    contentType: string | undefined,
    attempt: number,
    /** How the request travels when a proxy is set: through it, or directly and why. */
    way?: string,
  ): void;
  response(outcome: Outcome, elapsedMs: number): void;
  failure(reason: string, elapsedMs: number): void;
  /** A wait before a retry, said (`! rate limited (HTTP 429); retrying in 30 s (1 of 3)`). */
  note(text: string): void;
}

/**
 * The --debug trace: method, URL, status, timing, headers and bodies on stderr, curl style,
 * with every credential masked by name (headers, secret-looking fields), by shape and by value
 * (every secret the registry knows when the line is written). A body, sent or received, that
 * is neither JSON nor a form is shown by its size only (redactTracedBody says why).
 */
export function createTracer(write: (text: string) => void, secrets: SecretRegistry): Tracer {
  const emit = (lines: string[]) => write(`${secrets.redact(lines.join('\n'))}\n`);
  return {
    request(method, url, headers, body, contentType, attempt, way) {
      const lines = [`* ${method} ${redactUrl(url)}${attempt > 1 ? ` (attempt ${attempt})` : ''}`];
      if (way) lines.push(`* ${way}`);
      for (const [name, value] of Object.entries(headers))
        lines.push(`> ${name}: ${redactHeader(name, value)}`);
      if (body !== undefined) lines.push(`> ${clip(secrets.redact(redactTracedBody(body, contentType)))}`);
      emit(lines);
    },
    response(outcome, elapsedMs) {
      const lines = [`< ${outcome.status} ${outcome.statusText} in ${elapsedMs.toFixed(0)} ms`];
      for (const [name, value] of Object.entries(outcome.headers as Headers)) {
        for (const v of Array.isArray(value) ? value : [value]) {
          if (v !== undefined) lines.push(`< ${name}: ${redactHeader(name, v)}`);
        }
      }
      const type = outcome.headers['content-type'];
      if (outcome.text !== '') {
        const text = redactTracedBody(outcome.text, typeof type === 'string' ? type : undefined);
        lines.push(`< ${clip(secrets.redact(text))}`);
      }
      emit(lines);
    },
    failure(reason, elapsedMs) {
      emit([`! ${reason} after ${elapsedMs.toFixed(0)} ms; retrying`]);
    },
    note(text) {
      emit([`! ${text}`]);
    },
  };
}

/** Cuts a long body. Only ever after masking: a secret cut in two is no longer found to mask. */
function clip(text: string): string {
  return text.length > BODY_LIMIT
    ? `${text.slice(0, BODY_LIMIT)}${sym.ellipsis} (${text.length} bytes)`
    : text;
}
