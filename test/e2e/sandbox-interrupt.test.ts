/**
 * Ctrl-C of `svc sandbox start`: exit 0 ("sandbox stopped"), whether or not webhook deliveries are
 * in flight. Spawned: a real SIGINT and the exit status are the point. It was 130 with deliveries
 * in flight, because the bundled `when-exit` (conf → atomically, both since dropped) sent the process
 * a second SIGINT, which src/cli.ts takes for a second Ctrl-C.
 */
import { rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { background } from '../helpers/background.js';
import { runInProcess } from '../helpers/context.js';
import { useTempDir } from '../helpers/temp.js';

const root = useTempDir('svc-sandbox-int-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('Ctrl-C of svc sandbox start', () => {
  it('exits 0 with webhook deliveries in flight to a target that never answers', async () => {
    const sockets: Socket[] = [];
    const target = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const port = (target.address() as { port: number }).port;
    const env = {
      SVC_CONFIG_DIR: join(root, 'config'),
      SVC_STATE_DIR: join(root, 'state'),
      SVC_CACHE_DIR: join(root, 'cache'),
      NO_COLOR: '1',
    };
    try {
      const sandbox = background(['sandbox', 'start', '--port', '0'], env);
      await sandbox.waitFor(/Ctrl-C stops the sandbox/, 'stdout');
      const created = await runInProcess(
        [
          'webhooks',
          'create',
          '--url',
          `http://127.0.0.1:${port}/hook`,
          '--event-type',
          'exception.sla.breached',
          '--secret-file',
          join(root, 'whsec'),
          '--json',
        ],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const webhook = JSON.parse(created.stdout).id as string;
      const sent = await runInProcess(
        ['sandbox', 'trigger', 'exception.sla.breached', '--webhook', webhook, '--count', '3'],
        env,
      );
      expect(sent.code, sent.stderr).toBe(0);
      // A delivery of the spawned sandbox is in flight: a bound far above need (a spawned process once
      // ran 5 s late on CI), not the 4 s it was.
      await expect.poll(() => sockets.length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(0);
      expect(await sandbox.interrupt()).toBe(0);
      expect(sandbox.stderr()).toContain('sandbox stopped\n');
    } finally {
      for (const socket of sockets) socket.destroy();
      target.close();
    }
  }, 60_000);
});
