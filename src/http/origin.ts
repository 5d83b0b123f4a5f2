import { isLoopbackHost } from '../api/loopback.js';
import { UsageError } from '../errors.js';

/**
 * Where a credential may travel. A bearer token, a client secret or a refresh token sent over
 * plain HTTP can be read by anyone on the path, so svc sends one over http only to loopback
 * (127.0.0.0/8, [::1], localhost — the sandbox, a local proxy), unless the user allows it.
 */

export const ALLOW_INSECURE_HINT =
  'use https, or pass --allow-insecure-http (SVC_ALLOW_INSECURE_HTTP=1) if you accept that anyone on the network path can read it';

/** Throws (exit 2) when a credential would go over plain HTTP to a host that is not loopback. */
export function checkCredentialTransport(url: URL, allowInsecure: boolean): void {
  if (url.protocol !== 'http:' || allowInsecure || isLoopbackHost(url.hostname)) return;
  throw new UsageError(
    `refusing to send a credential over plain HTTP to ${url.hostname} (not a loopback address)`,
    { code: 'insecure_transport', hint: ALLOW_INSECURE_HINT },
  );
}
