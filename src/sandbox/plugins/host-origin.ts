import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { ApiProblem } from '../problem.js';

/**
 * The sandbox is bound to loopback, but a browser is not stopped by that: a page whose name the
 * attacker rebinds to 127.0.0.1 (DNS rebinding) is same-origin with the sandbox, so it may POST
 * JSON and read the answers — mint an admin token from /_sandbox/tokens, read a webhook's secret
 * (attack17 A6). As local dev servers do (webpack-dev-server's allowedHosts, Vite's), the sandbox
 * serves only a Host that no page can rebind: an IP address, `localhost` (and names under it), or
 * the host of its own URL or of --host, and, bound to every interface (--host 0.0.0.0 or ::), the
 * machine's own name (machineNames), by which the LAN reaches it (421 misdirected_request
 * otherwise); and a browser's state-changing request from
 * another origin (another site, another local port, an opaque `null`) is refused (403
 * cross_origin_forbidden), so a page elsewhere cannot drive the consent page or the test controls.
 * Requests without Origin (svc, curl, the delivery engine) and the sandbox's own pages are served.
 */

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The host name of a Host header value (`name:port`, `[v6]:port`), lowered; undefined if it is not one. */
function hostName(value: string): string | undefined {
  try {
    return new URL(`http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Whether a Host header's name is one no web page can rebind: an IP address, localhost and the
 * names under it (`localhost.`, `app.localhost`: browsers resolve them to loopback themselves,
 * without DNS, RFC 6761 §6.3; review18 R18-4), or one of `own`.
 */
export function servedHost(name: string, own: readonly string[]): boolean {
  const bare = name.startsWith('[') ? name.slice(1, -1) : name;
  const absolute = name.endsWith('.') ? name.slice(0, -1) : name;
  return (
    isIP(bare) !== 0 || absolute === 'localhost' || absolute.endsWith('.localhost') || own.includes(name)
  );
}

/** A --host that binds every interface (0.0.0.0, ::, however spelt), as the Host check reads names. */
const everyInterface = (name: string | undefined) => name === '0.0.0.0' || name === '[::]';

/**
 * The machine's own names, served when the sandbox is bound to every interface: os.hostname()
 * (a name the local resolver gives the machine, not one a web page's DNS can take), and a dotted
 * one's first label, as peers on the LAN call it. Its addresses need nothing: every IP is served.
 */
export function machineNames(name: string = hostname()): string[] {
  const own = name.trim().toLowerCase().replace(/\.$/, '');
  if (own === '' || hostName(own) !== own) return [];
  const short = own.split('.')[0]!;
  return short !== own && short !== '' ? [own, short] : [own];
}

/**
 * Registers the checks. `url()`: the sandbox's own URL (its host is served, and it is what the
 * refusals point to); `hosts`: the names it was bound with (--host), served too (and with every
 * interface, the machine's own names).
 */
export function registerHostAndOrigin(
  app: FastifyInstance,
  url: () => string,
  hosts: readonly string[],
): void {
  // A bare IPv6 --host (::, ::1) is bracketed as a Host header has it.
  const given = hosts.map((h) => hostName(isIP(h) === 6 ? `[${h}]` : h) ?? h.toLowerCase());
  const machine = given.some(everyInterface) ? machineNames() : [];
  // What the sandbox's own URL gives, parsed once per URL (it is set once the port is known), not
  // on every request.
  let seen: { url: string; own: URL; localhost: string; names: string[] } | undefined;
  const current = () => {
    const text = url();
    if (seen?.url !== text) {
      const own = new URL(text);
      const localhost = `http://localhost${own.port ? `:${own.port}` : ''}`;
      seen = { url: text, own, localhost, names: [own.hostname.toLowerCase(), ...given, ...machine] };
    }
    return seen;
  };
  app.addHook('onRequest', async (request) => {
    const { own, localhost, names } = current();
    const host = request.headers.host;
    // HTTP/1.0 may send none; a browser always does.
    const name = host === undefined ? undefined : hostName(host);
    if (host !== undefined && (name === undefined || !servedHost(name, names))) {
      throw new ApiProblem(
        421,
        'misdirected_request',
        `this sandbox does not serve the host ${name ?? JSON.stringify(host)} (a web page that rebound its name to this address?); ` +
          `use its own URL, ${own.origin}, or ${localhost}`,
      );
    }
    const origin = request.headers.origin;
    if (origin === undefined || SAFE_METHODS.has(request.method)) return;
    // Same origin: the scheme is http and the host (port included) is the one the request was sent to.
    if (host !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`) return;
    throw new ApiProblem(
      403,
      'cross_origin_forbidden',
      `a ${request.method} from the origin ${origin} is refused: only pages of the sandbox itself (${own.origin}) may change it; ` +
        `send the request without an Origin, or from ${own.origin}`,
    );
  });
}
