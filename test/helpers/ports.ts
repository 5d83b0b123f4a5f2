/**
 * A loopback port for a test that must name its port before anything listens on it (a listener
 * started with `--port N`, a child told its port). It is taken from below the kernel's ephemeral
 * range, never from `listen(0)`: a port `listen(0)` gave out and released is the next one any other
 * test process may get from its own `listen(0)`, and then a request meant for one test reaches the
 * other's server (CI once saw a forged request answered 400 by another file's listener and saved
 * in its capture directory). Below the range, only another caller of this helper can pick it, and
 * each pick is checked free by binding it.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const ephemeralLow = (() => {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 12_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
})();

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A free loopback port outside the ephemeral range (so no `listen(0)` anywhere is given it). */
export async function reservedPort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = 10_000 + Math.floor(Math.random() * (ephemeralLow - 10_000));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port between 10000 and ${ephemeralLow} after 50 tries`);
}
