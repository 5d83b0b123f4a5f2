import { afterEach } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { passOn, useFront } from './sandbox-front.js';

/**
 * Another reasonable server of the API, played by a proxy in front of a test sandbox (attack18b):
 * every request is passed on, and the test may change the answer before svc reads it — a header
 * spelled otherwise or absent, a record with only the reference's minimum of fields ("not shown"),
 * a list paged another way, other status words or ids. The sandbox still does the work, so a test
 * can check the real state afterwards through `sandbox().url`.
 */

/** One answer as the sandbox gave it; a reshape changes it in place. `body` is parsed JSON (or the text). */
export interface Reshaped {
  method: string;
  /** The path svc asked for (before a rewrite), with its query. */
  path: string;
  status: number;
  /** The answer's headers (set or add one to send it). */
  headers: Record<string, string>;
  body: unknown;
}

/** An answer whose body was JSON, as `reshape(fn)` is given it. */
export type Exchange = Reshaped;

export interface Reshaping {
  /** Changes every answer before svc sees it (default: none). */
  reshape?: (answer: Reshaped) => void;
  /** The path passed on to the sandbox in place of the one svc asked for (ids mapped back). */
  path?: (method: string, path: string) => string;
  /** The request body passed on in place of the one svc sent (ids mapped back). */
  body?: (text: string) => string;
}

export interface ReshapingProxy {
  url: string;
  /** The requests svc sent, `METHOD path`, in order. */
  seen: string[];
  /** Sets how requests and answers are changed from now on (reset after each test). */
  set(reshaping: Reshaping): void;
  /** Changes the JSON answers only, from now on (the others pass as they came). */
  reshape(next: ((exchange: Exchange) => void) | undefined): void;
  /** The path passed on in place of the one asked (a server that pages with its own parameters). */
  rewrite(next: ((method: string, path: string) => string) | undefined): void;
}

export function useReshapingProxy(sandbox: () => Sandbox): () => ReshapingProxy {
  let reshaping: Reshaping = {};
  const seen: string[] = [];
  const url = useFront(async (request, response) => {
    const { method, path: asked, body } = request;
    seen.push(`${method} ${asked}`);
    const sent =
      body.length > 0 && reshaping.body ? Buffer.from(reshaping.body(body.toString('utf8'))) : body;
    const upstream = await passOn(sandbox, reshaping.path?.(method, asked) ?? asked, request, sent);
    if (reshaping.reshape === undefined) {
      response.writeHead(upstream.status, upstream.headers);
      response.end(upstream.text);
      return;
    }
    let parsed: unknown = upstream.text;
    try {
      parsed = upstream.text === '' ? '' : JSON.parse(upstream.text);
    } catch {}
    const answer: Reshaped = {
      method,
      path: asked,
      status: upstream.status,
      headers: upstream.headers,
      body: parsed,
    };
    reshaping.reshape(answer);
    response.writeHead(answer.status, answer.headers);
    response.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  });
  afterEach(() => {
    reshaping = {};
    seen.length = 0;
  });
  return () => ({
    url: url(),
    seen,
    set(next) {
      reshaping = next;
    },
    reshape(next) {
      const { reshape: _, ...rest } = reshaping;
      // A text answer (none, or not JSON) passes as it came: only JSON is reshaped this way.
      reshaping =
        next === undefined
          ? rest
          : { ...rest, reshape: (answer) => (typeof answer.body === 'string' ? undefined : next(answer)) };
    },
    rewrite(next) {
      const { path: _, ...rest } = reshaping;
      reshaping = next === undefined ? rest : { ...rest, path: next };
    },
  });
}

/** Keeps only `fields` of an object (the reference's minimum of a record). */
export function keepOnly(record: unknown, fields: readonly string[]): void {
  if (record === null || typeof record !== 'object') return;
  for (const key of Object.keys(record)) {
    if (!fields.includes(key)) delete (record as Record<string, unknown>)[key];
  }
}
