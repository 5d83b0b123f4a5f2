/**
 * The pieces of undici svc uses: a dispatcher that sends each request directly or through the
 * proxy proxy.ts chooses for it, and the request API. Importing the package root also initialises
 * fetch, WebSocket, caching and mocking, which costs about 30 ms at every start (bench/RESULTS.md);
 * these deep imports skip that. test/http/client.test.ts and test/http/proxy.test.ts exercise them
 * through real requests, proxy included.
 *
 * Over 300 lines (351): the router, the proxy agents it makes and the connectors they dial with are
 * one piece (whyNotSent reads the pools proxyAgent makes; proxyDialFailed the errors its connector
 * marks); Node's warnings it mutes (about 50 lines) could go to a file of their own.
 */
import { isIP } from 'node:net';
import type { Agent as AgentType, Dispatcher as DispatcherType } from 'undici';
import api from 'undici/lib/api/index.js';
import buildConnector from 'undici/lib/core/connect.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import Client from 'undici/lib/dispatcher/client.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import Socks5ProxyAgent from 'undici/lib/dispatcher/socks5-proxy-agent.js';
import { type ProxySettings, route } from './proxy.js';

// What undici's index.js does: dispatchers get request(), connect(), … (ProxyAgent needs connect).
Object.assign(Dispatcher.prototype, api);

export type { DispatcherType as Dispatcher };

/**
 * Sends each request directly (a loopback target, a NO_PROXY host, no proxy set) or through its
 * proxy, one connection pool per way. What undici's EnvHttpProxyAgent does, but deciding with
 * proxy.ts: loopback is never proxied, and only the Context's environment is read.
 */
export class ProxyRouter extends Dispatcher {
  readonly settings: ProxySettings;
  readonly #options: AgentType.Options;
  readonly #target: { rejectUnauthorized: boolean };
  readonly #direct: DispatcherType;
  readonly #proxied = new Map<string, ProxyWay>();

  /**
   * `unverifiedTargets`: the servers' certificates (not a proxy's, which may be given a password)
   * are not checked, for connections that carry no credential of svc's and whose caller says so
   * (listen's forwards under NODE_TLS_REJECT_UNAUTHORIZED=0, review24c M1). Otherwise VERIFIED.
   */
  constructor(settings: ProxySettings, options: AgentType.Options = {}, unverifiedTargets = false) {
    super();
    this.settings = settings;
    this.#options = options;
    this.#target = { rejectUnauthorized: !unverifiedTargets };
    muteUnverifiedWarning();
    this.#direct = new Agent({ ...options, connect: { ...this.#target } });
  }

  override dispatch(
    options: DispatcherType.DispatchOptions,
    handler: DispatcherType.DispatchHandler,
  ): boolean {
    const { proxy } = route(new URL(String(options.origin)), this.settings);
    return this.#way(proxy).dispatch(options, handler);
  }

  #way(proxy: URL | undefined): DispatcherType {
    if (!proxy) return this.#direct;
    let way = this.#proxied.get(proxy.href);
    if (!way) {
      way = proxyAgent(proxy, this.#options, this.#target);
      this.#proxied.set(proxy.href, way);
    }
    return way.agent;
  }

  /**
   * Why a request to `url` that is not on a connection yet waits, when it is svc's own or the
   * proxy's doing: `busy`, the connections svc holds open to the origin (through its tunnels too),
   * every one busy (undici queues at the pool only then; review24c L1: such a wait is not "could
   * not connect"); `proxySilent`, an http(s) proxy connected to and sent a CONNECT it has not
   * answered (s25). Undefined otherwise (still connecting, a TLS handshake unanswered, SOCKS5).
   */
  whyNotSent(url: URL): { busy: number } | { proxySilent: true } | undefined {
    const { proxy } = route(url, this.settings);
    if (!proxy) {
      const stats = (this.#direct as unknown as { stats: Record<string, Stats> }).stats[url.origin];
      const busy = stats && allBusy(stats);
      return busy ? { busy } : undefined;
    }
    const way = this.#proxied.get(proxy.href);
    const pool = way?.origins.get(url.origin);
    const busy = pool && allBusy(pool.stats as unknown as Stats);
    if (busy) return { busy };
    // A CONNECT is running (written, unanswered) on a connection to the proxy that is up.
    const tunnels = way?.tunnels?.stats as unknown as Stats | undefined;
    return tunnels && Number(tunnels.connected) > 0 && tunnels.running > 0
      ? { proxySilent: true }
      : undefined;
  }

  override async close(): Promise<void> {
    await Promise.all(this.#agents().map((way) => way.close()));
  }

  override async destroy(): Promise<void> {
    await Promise.all(this.#agents().map((way) => way.destroy()));
  }

  /** Every agent this router made: the direct one and one per proxy. */
  #agents(): DispatcherType[] {
    return [this.#direct, ...[...this.#proxied.values()].map((way) => way.agent)];
  }
}

/** undici's stats of a Pool or of a Client (connections: 1; `connected` then says whether it is). */
type Stats = { connected: number | boolean; queued?: number; pending: number; running: number };

/** How many connections are open when every one is busy and a request waits for one; else 0. */
function allBusy(stats: Stats): number {
  const connected = Number(stats.connected ?? 0);
  if (connected === 0) return 0;
  // A Pool (several connections) queues only when each is busy; a Client (connections: 1)
  // holds a request pending behind the one its connection runs.
  const waiting = stats.queued === undefined ? stats.running > 0 && stats.pending > 0 : stats.queued > 0;
  return waiting ? connected : 0;
}

/**
 * The agent of one proxy, with what whyNotSent reads: its pools to each origin (tunnelled
 * connections), and its pool of connections to the proxy that carry the CONNECTs (http(s) only).
 */
interface ProxyWay {
  agent: DispatcherType;
  origins: Map<string, Counted>;
  tunnels?: Counted;
}

/** A Pool or a Client, whose stats undici keeps. */
type Counted = DispatcherType & { stats: object };

/**
 * undici's agent for `proxy`. A SOCKS5 proxy (socks5h:// is socks5:// to undici, which hands the
 * proxy the target's name) gets undici's SOCKS5 agent directly, not through ProxyAgent: ProxyAgent
 * passes it the URL's user name and password still percent-encoded (`p%40ss` for `p@ss`), and its
 * connector is given an IPv6 proxy's host with its brackets (`[::1]`), which no resolver takes.
 */
function proxyAgent(
  proxy: URL,
  options: AgentType.Options,
  target: { rejectUnauthorized: boolean },
): ProxyWay {
  const origins = new Map<string, Counted>();
  if (proxy.protocol === 'http:' || proxy.protocol === 'https:') {
    const secure = proxy.protocol === 'https:';
    const way: ProxyWay = { agent: undefined as unknown as DispatcherType, origins };
    way.agent = new ProxyAgent({
      ...options,
      requestTls: { ...target },
      proxyTls: { ...VERIFIED },
      uri: proxy.href,
      clientFactory: (origin, clientOptions: Pool.Options) => {
        const given = clientOptions.connect;
        const dial = typeof given === 'function' ? given : buildConnector(given ?? {});
        const connect = noSilentRedial(secure ? withoutAddressServername(dial) : dial);
        way.tunnels = new Pool(origin, { ...clientOptions, connect });
        return way.tunnels;
      },
      // undici's own choice (a Client for one connection), kept to be read (whyNotSent).
      factory: (origin, given) => {
        const agentOptions = given as Pool.Options;
        const made =
          agentOptions.connections === 1 ? new Client(origin, agentOptions) : new Pool(origin, agentOptions);
        origins.set(String(origin), made);
        return made;
      },
    });
    return way;
  }
  const uri = new URL(proxy.href);
  uri.protocol = 'socks5:';
  muteSocksWarning();
  const connector = buildConnector({});
  // requestTls (the server's TLS through the tunnel) is read by the agent but not in its typings.
  const agent = new Socks5ProxyAgent(uri, {
    ...({ requestTls: { ...target } } as object),
    connect: (connectOptions, callback) =>
      connector(
        {
          ...connectOptions,
          hostname: unbracketed(connectOptions.hostname)!,
          host: unbracketed(connectOptions.host),
        },
        callback,
      ),
  });
  return { agent, origins };
}

/** An IPv6 host as a URL writes it (`[::1]`) without its brackets, as resolvers and TLS take it. */
const unbracketed = (host: string | undefined) => host?.replace(/^\[(.*)\]$/, '$1');

/**
 * The connector to an https:// proxy without a server name that is an IP address: ProxyAgent
 * gives the proxy's host as the TLS server name whatever it is, and Node answers an address there
 * (which RFC 6066 does not allow) with a DEP0123 DeprecationWarning on stderr. Without one,
 * undici's connector sends none for an address, as for a direct connection.
 */
function withoutAddressServername(connect: buildConnector.connector): buildConnector.connector {
  return (connectOptions, callback) => {
    const bare = unbracketed(connectOptions.servername);
    connect(
      bare !== undefined && isIP(bare) !== 0 ? { ...connectOptions, servername: undefined } : connectOptions,
      callback,
    );
  };
}

/** The code of the error a dial to a proxy that closed its last connection unanswered fails with. */
export const PROXY_CLOSED = 'SVC_PROXY_CLOSED';

/**
 * The connector of the connections to an http proxy, which fails the next dial after a connection
 * the proxy closed without a byte of answer. undici re-dials such a proxy for ever, inside one
 * request, ~200 times a second: its client keeps a CONNECT that the closed socket never ran queued
 * and dials again, and the tunnel's failure (a socket error) is one its agent takes as passing and
 * dials again (exploratory test s12, contract12 #1: --timeout, the retries and SIGTERM ignored). A
 * failed dial ends the request, so svc's retries and --timeout hold whatever the proxy does: one
 * connection per attempt. The dial after the failed one is tried again.
 */
function noSilentRedial(dial: buildConnector.connector): buildConnector.connector {
  let silent = false;
  return (options, callback) => {
    if (silent) {
      silent = false;
      const error = new Error('the proxy closed the connection without answering') as Error & {
        code: string;
      };
      error.code = PROXY_CLOSED;
      callback(error, null);
      return;
    }
    dial(options, (error, socket) => {
      if (error) {
        ownFailures.add(error);
        return callback(error, null);
      }
      socket.once('close', () => {
        if (socket.bytesRead === 0) silent = true;
      });
      callback(null, socket);
    });
  };
}

/** Errors of dials to an http(s) proxy itself (not to the server through its tunnel). */
const ownFailures = new WeakSet<object>();

/**
 * Whether `error` is a failed dial to the http(s) proxy itself (refused, its TLS certificate not
 * trusted, …), not the server's behind it: undici hands it on as it is, or (a certificate for
 * another name) as the cause of its own error.
 */
export function proxyDialFailed(error: unknown): boolean {
  const cause = (error as { cause?: unknown })?.cause;
  return [error, cause].some((e) => typeof e === 'object' && e !== null && ownFailures.has(e));
}

/**
 * Every TLS connection svc makes verifies the certificate, whatever NODE_TLS_REJECT_UNAUTHORIZED
 * says: svc sends credentials over them (attack24a F5). Node's default is read from that variable
 * ('0': no verification); given explicitly, it is not. A private CA is trusted with
 * NODE_EXTRA_CA_CERTS; the run says once that the variable is ignored (context.ts). The one
 * exception is a caller's own (ProxyRouter's `unverifiedTargets`: listen's forwards).
 */
const VERIFIED = { rejectUnauthorized: true } as const;

/** The variable that would turn verification off, set so: svc ignores it (VERIFIED). */
export function verificationOffAsked(env: Record<string, string | undefined>): boolean {
  return env.NODE_TLS_REJECT_UNAUTHORIZED === '0';
}

/** Node's warnings svc swallows once each, by how they begin (muteWarningOnce). */
const mutedWarnings = new Set<string>();
const askedToMute = new Set<string>();
let nodeEmitWarning: typeof process.emitWarning | undefined;

/**
 * Swallows the first of Node's warnings that begins with `prefix`, once per process: stderr is
 * svc's own (its output rules), and the warnings muted here are untrue for svc or about undici's
 * insides. One wrapper holds every prefix still awaited, and Node's emitWarning is put back when
 * none is left (two wrappers, each putting back what it found, lost the other's).
 */
function muteWarningOnce(prefix: string): void {
  if (askedToMute.has(prefix)) return;
  askedToMute.add(prefix);
  mutedWarnings.add(prefix);
  if (nodeEmitWarning) return;
  const emitWarning = process.emitWarning;
  nodeEmitWarning = emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = String(warning);
    const muted = [...mutedWarnings].find((p) => text.startsWith(p));
    if (muted === undefined)
      return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
    mutedWarnings.delete(muted);
    if (mutedWarnings.size === 0) {
      process.emitWarning = emitWarning;
      nodeEmitWarning = undefined;
    }
  }) as typeof process.emitWarning;
}

/**
 * Node warns at the first TLS connection when NODE_TLS_REJECT_UNAUTHORIZED=0 that connections are
 * not verified, even when the caller verifies (VERIFIED): untrue for svc; svc says its own line.
 */
export function muteUnverifiedWarning(): void {
  if (process.env.NODE_TLS_REJECT_UNAUTHORIZED !== '0') return;
  muteWarningOnce("Setting the NODE_TLS_REJECT_UNAUTHORIZED environment variable to '0'");
}

/** undici's SOCKS5 agent, made at the first request through it, announces itself once per process. */
export function muteSocksWarning(): void {
  muteWarningOnce('SOCKS5 proxy support is experimental');
}

/**
 * Sends a request; `onSent` is called when it goes onto its connection (undici's onConnect comes
 * just before the request's headers are written), so a caller knows whether it may have reached
 * the server: a request still waiting for a connection has not.
 */
export function request(
  dispatcher: DispatcherType,
  url: URL,
  options: Omit<DispatcherType.RequestOptions, 'origin' | 'path'>,
  onSent?: () => void,
): Promise<DispatcherType.ResponseData> {
  const through = onSent === undefined ? dispatcher : watched(dispatcher, onSent);
  return through.request({ ...options, origin: url.origin, path: `${url.pathname}${url.search}` });
}

/** `dispatcher`, but each handler it is given calls `onSent` before its own onConnect. */
function watched(dispatcher: DispatcherType, onSent: () => void): DispatcherType {
  const dispatch: DispatcherType['dispatch'] = (options, handler) => {
    const own = handler as { onConnect?: (...args: unknown[]) => void };
    const connect = own.onConnect;
    own.onConnect = function (this: unknown, ...args: unknown[]) {
      onSent();
      return connect?.apply(this, args);
    };
    return dispatcher.dispatch(options, handler);
  };
  return Object.create(dispatcher, { dispatch: { value: dispatch } }) as DispatcherType;
}
