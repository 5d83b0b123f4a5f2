// Where `webhooks listen --forward-to` sends a valid delivery on, and the refusal of the listener's own address.
import type { Context } from '../../context.js';
import type { Forwarder } from '../../webhooks/listen.js';

/** Forwards with svc's HTTP stack (undici, honouring HTTP(S)_PROXY and NO_PROXY; loopback is never proxied). */
export async function forwarder(
  ctx: Context,
  target: URL,
  timeoutSeconds: number,
): Promise<{ forward: Forwarder; close: () => Promise<void> }> {
  const { ProxyRouter, request, verificationOffAsked } = await import('../../http/undici.js');
  const { proxySettings, route } = await import('../../http/proxy.js');
  const { certificateRefused } = await import('../../http/connect-failure.js');
  // A forward carries the delivery and no credential of svc's, to the user's own app (often
  // self-signed): NODE_TLS_REJECT_UNAUTHORIZED=0 is honoured for it, as Node would, and said once
  // (svc's own requests to the platform still check, context.ts; review24c M1).
  const unverified = target.protocol === 'https:' && verificationOffAsked(ctx.env);
  if (unverified) {
    ctx.out.warn(
      `NODE_TLS_REJECT_UNAUTHORIZED=0: the TLS certificate of ${target.origin} (--forward-to) is not checked; a forward carries no credentials of svc's, and svc's requests to the platform still check theirs`,
    );
  }
  const settings = proxySettings(ctx.env);
  const way = route(target, settings);
  const agent = new ProxyRouter(settings, {}, unverified);
  return {
    forward: async (body, headers) => {
      // The Context's timer (real time for svc; a test's clock plays it), cleared once the answer is in.
      const limit = new AbortController();
      const cancel = ctx.clock.timer(timeoutSeconds * 1000, () => limit.abort());
      try {
        return await forwardOnce(body, headers, limit.signal);
      } finally {
        cancel();
      }
    },
    close: () => agent.close(),
  };

  async function forwardOnce(body: Buffer, headers: Record<string, string>, signal: AbortSignal) {
    const response = await request(agent, target, { method: 'POST', headers, body, signal }).catch(
      (error: unknown) => {
        if (signal.aborted) throw new Error(`the target did not answer within ${timeoutSeconds} s`);
        // A certificate refused is said in svc's words, with its fix, as for the platform's.
        const proxy = way.proxy && { url: way.proxy, from: way.from };
        const refused = certificateRefused(target, proxy, error, 'forward');
        throw refused ? new Error(`${refused.message}; ${refused.hint}`) : error;
      },
    );
    // The limit covers the whole answer: a target that sent its head and then hung is said so.
    const answer = Buffer.from(
      await response.body.arrayBuffer().catch((error: unknown) => {
        if (!signal.aborted) throw error;
        throw new Error(
          `the target answered ${response.statusCode} but did not finish its answer within ${timeoutSeconds} s`,
        );
      }),
    );
    const type = response.headers['content-type'];
    const answerHeaders: Record<string, string> = typeof type === 'string' ? { 'content-type': type } : {};
    return {
      status: response.statusCode,
      headers: answerHeaders,
      body: answer,
    };
  }
}

/**
 * `host:port` of the listener when --forward-to names it: the bound port (known once bound, so
 * --port 0 too) on the bound host, on `localhost` when that is a loopback address, or on any
 * loopback address or 0.0.0.0 when every interface is bound; undefined otherwise.
 */
export function forwardsToItself(target: URL, boundHost: string, listenerUrl: string): string | undefined {
  const bound = new URL(listenerUrl);
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (port !== bound.port) return undefined;
  const host = target.hostname.toLowerCase();
  const ipv4Loopback = /^127(?:\.\d{1,3}){3}$/.test(host);
  const names: Record<string, boolean> = {
    '0.0.0.0': ipv4Loopback || host === '0.0.0.0' || host === 'localhost',
    '::': ipv4Loopback || host === '0.0.0.0' || host === 'localhost' || host === '[::1]' || host === '[::]',
    '127.0.0.1': host === 'localhost',
    '::1': host === 'localhost',
  };
  return host === bound.hostname.toLowerCase() || names[boundHost] ? bound.host : undefined;
}
