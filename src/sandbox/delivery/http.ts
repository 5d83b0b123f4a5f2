/**
 * The delivery engine's HTTP client: undici's Agent and request API, imported from their modules
 * rather than the package root (which also initialises fetch, WebSocket and caches), and without
 * src/http/undici.ts, which switches V8 to baseline-only WebAssembly for the CLI's short runs:
 * the engine is a long-running server process, where the optimising tier parses faster.
 */
import type { Dispatcher } from 'undici';
import api from 'undici/lib/api/index.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import DispatcherBase from 'undici/lib/dispatcher/dispatcher.js';

// What undici's index.js does: dispatchers get request() and friends (idempotent).
Object.assign(DispatcherBase.prototype, api);

export type { Dispatcher };

export function createAgent(options: { connections: number; connectTimeoutMs: number }): Dispatcher {
  return new Agent({
    connections: options.connections,
    pipelining: 1,
    keepAliveTimeout: 4_000,
    connect: { timeout: options.connectTimeoutMs },
  });
}
