// Helpers of the webhook benchmarks (issue 5): a local target in its own process, and calls to
// a sandbox's API and controls.
import { spawn } from 'node:child_process';

const TARGET = `
const http = require('node:http');
let n = 0;
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => { n++; res.writeHead(204); res.end(); });
});
server.keepAliveTimeout = 10000;
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'));
process.on('SIGINT', () => { process.stderr.write(String(n)); process.exit(0); });
`;

/**
 * A webhook target running `script` (which prints `{"port"}` once listening and, on SIGINT, what
 * it received on stderr) in its own process: the engine's load is not the bench's. `stop()`
 * resolves with `parse(what it printed)`.
 */
export async function startTargetScript(script, args, path, parse) {
  const child = spawn(process.execPath, ['-e', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`target exited with ${code}`)));
    child.stdout.once('data', (chunk) => resolve(JSON.parse(String(chunk)).port));
  });
  let received = '';
  child.stderr.on('data', (d) => {
    received += d;
  });
  let stopped;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    stop() {
      stopped ??= (async () => {
        child.removeAllListeners('exit');
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT');
        await exited;
        return parse(received);
      })();
      return stopped;
    },
  };
}

/** A webhook target that answers 204 at once; `stop()` resolves with how many requests it had. */
export function startTargetProcess() {
  return startTargetScript(TARGET, [], '/webhooks', Number);
}

export function api(sandbox) {
  return async (method, path, body) => {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sandbox.admin_token}`,
        'x-tenant-id': sandbox.tenant,
        'content-type': 'application/json',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const data = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(data)}`);
    return data;
  };
}

export async function createWebhook(call, url, extra = {}) {
  return call('POST', '/v1/webhooks', {
    url,
    event_types: ['exception.sla.breached'],
    idempotency_key: `bench-${Date.now()}-${Math.random()}`,
    ...extra,
  });
}
