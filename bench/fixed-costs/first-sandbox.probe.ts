/** In a fresh worker: loading the sandbox's modules, its first start and close (every validator compiled), the second. */
import { it } from 'vitest';
import { cpuMs, record } from './lib.js';

it('records', async () => {
  const t0 = cpuMs();
  const { startSandbox } = await import('../../src/sandbox/server.js');
  const t1 = cpuMs();
  await (await startSandbox({ port: 0 })).close();
  const t2 = cpuMs();
  await (await startSandbox({ port: 0 })).close();
  const t3 = cpuMs();
  record({
    name: 'first sandbox',
    load: +(t1 - t0).toFixed(1),
    first: +(t2 - t1).toFixed(1),
    second: +(t3 - t2).toFixed(1),
  });
}, 600_000);
