/** `svc login` flags that choose how the login finishes, checked before anything is sent. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';

const dirs = useTempDirs();
let server: Server;
let url: string;

beforeAll(async () => {
  // An authorization server without RFC 8414 metadata (every path 404).
  server = createServer((_request, response) => response.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('svc login --device', () => {
  it('exits 2 where the server offers no device authorization, naming the way that works', async () => {
    const r = await runInProcess(['login', '--device'], {
      ...dirs(),
      SVC_BASE_URL: url,
      SVC_CLIENT_ID: 'svc-cli',
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: ${url} does not offer device authorization (RFC 8628); use \`svc login --no-browser\`: open the URL it prints on any machine, then paste the address the browser ends on\n`,
    ]);
  });

  it.each([
    [['--port', '8080'], 'error: --device needs no redirect, so --port does not apply; leave it out\n'],
    [['--no-browser'], 'error: --device needs no redirect, so --no-browser does not apply; leave it out\n'],
    [['--with-token'], 'error: --device cannot be combined with --with-token\n'],
  ])('%j with --device is a usage error', async (flags, stderr) => {
    const r = await runInProcess(['login', '--device', ...flags], { ...dirs(), SVC_BASE_URL: url });
    expect([r.code, r.stderr]).toEqual([2, stderr]);
  });
});
