/**
 * The pieces of undici svc uses: a dispatcher that sends each request directly or through the
 * proxy proxy.ts chooses for it, and the request API. Importing the package root also initialises
 * fetch, WebSocket, caching and mocking, which costs about 30 ms at every start (bench/RESULTS.md);
 * these deep imports skip that. test/http/client.test.ts and test/http/proxy.test.ts exercise them
 * through real requests, proxy included.
 */
import type { Agent as AgentType, Dispatcher as DispatcherType } from 'undici';
import api from 'undici/lib/api/index.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
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
  readonly #direct: DispatcherType;
  readonly #proxied = new Map<string, DispatcherType>();

  constructor(settings: ProxySettings, options: AgentType.Options = {}) {
    super();
    this.settings = settings;
    this.#options = options;
    this.#direct = new Agent(options);
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
    let agent = this.#proxied.get(proxy.href);
    if (!agent) {
      agent = new ProxyAgent({ ...this.#options, uri: proxy.href });
      this.#proxied.set(proxy.href, agent);
    }
    return agent;
  }

  override async close(): Promise<void> {
    await Promise.all([this.#direct, ...this.#proxied.values()].map((way) => way.close()));
  }

  override async destroy(): Promise<void> {
    await Promise.all([this.#direct, ...this.#proxied.values()].map((way) => way.destroy()));
  }
}

export function request(
  dispatcher: DispatcherType,
  url: URL,
  options: Omit<DispatcherType.RequestOptions, 'origin' | 'path'>,
): Promise<DispatcherType.ResponseData> {
  return dispatcher.request({ ...options, origin: url.origin, path: `${url.pathname}${url.search}` });
}
