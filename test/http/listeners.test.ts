import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { proxySettings } from '../../src/http/proxy.js';
import { exchange } from '../../src/http/send.js';
import { ProxyRouter } from '../../src/http/undici.js';

// Dozens of requests in flight at once all listen to the one Ctrl-C signal (svc plan reads
// sixteen listings at a time, bulk runs up to 64 requests): Node must not warn of a leak.
describe('requests in flight and the Ctrl-C signal', () => {
  it('lets 40 requests listen to one signal without a MaxListenersExceededWarning', async () => {
    const server = createServer((_req, res) => setTimeout(() => res.end('{}'), 20));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const signal = new AbortController().signal;
    const agent = new ProxyRouter(proxySettings({}), { connections: 64 });
    try {
      await Promise.all(
        Array.from({ length: 40 }, () =>
          exchange(agent, 'GET', new URL(`http://127.0.0.1:${port}/`), {}, undefined, {
            timeoutMs: 5000,
            maxBytes: 1024,
            signal,
          }),
        ),
      );
      await new Promise((r) => setImmediate(r));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await agent.close();
      server.close();
    }
  });
});
