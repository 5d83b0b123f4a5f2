/**
 * The pieces of undici svc uses: the dispatcher that honours HTTP(S)_PROXY/NO_PROXY and the
 * request API. Importing the package root also initialises fetch, WebSocket, caching and
 * mocking, which costs about 30 ms at every start (bench/RESULTS.md); these deep imports skip
 * that. test/http/client.test.ts exercises them through real requests, proxy included.
 */
import type { Dispatcher as DispatcherType } from 'undici';
import api from 'undici/lib/api/index.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';

// What undici's index.js does: dispatchers get request(), connect(), … (ProxyAgent needs connect).
Object.assign(Dispatcher.prototype, api);

export type { DispatcherType as Dispatcher };
export { EnvHttpProxyAgent };

export function request(
  dispatcher: DispatcherType,
  url: URL,
  options: Omit<DispatcherType.RequestOptions, 'origin' | 'path'>,
): Promise<DispatcherType.ResponseData> {
  return dispatcher.request({ ...options, origin: url.origin, path: `${url.pathname}${url.search}` });
}
