import { createServer, type Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole, held, lastJson } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { reservedPort } from '../../helpers/ports.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { pipeOn } from '../../helpers/sandbox-front.js';

// "A connection refused before anything was sent is a plain failure" (bulk rows; audit13 F13: the
// old test's run died on its first read, so no row was ever judged). Here the run's read gets
// through and its listener is gone before the grant: the row's connection is refused.
const sandbox = useSandbox({ users: 30 });
const svc = bulkRunner(sandbox);

let server: Server | undefined;
let back: Server | undefined;
afterAll(() => {
  server?.close();
  back?.close();
});

/** A plain forwarder to the sandbox on `port`: the platform back where it was. */
async function forwardingOn(port: number): Promise<void> {
  back = createServer((req, res) => pipeOn(sandbox().url, req, res));
  await new Promise<void>((resolve) => back!.listen(port, '127.0.0.1', resolve));
}

/**
 * A forwarder to the sandbox that stops listening as it answers `last` (each answer closes its
 * connection): every later request's connection is refused, nothing of it sent.
 */
async function refusingAfter(last: string): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    pipeOn(sandbox().url, req, res, () => {
      if (`${req.method} ${req.url}` === last) server!.close();
      return { connection: 'close' };
    });
  });
  // Below the ephemeral range (reservedPort): no listen(0) elsewhere is given it once it is closed,
  // so its connections are refused, and the same port listens again for the resume (review24e L4).
  const port = await reservedPort();
  await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, seen };
}

describe('svc roles assign --file, a row whose connection is refused', () => {
  it('is a plain failure: no outcome, "1 failed" without an unknown outcome, nothing granted', async () => {
    const role = await customRole(sandbox(), 'refused-row');
    const user = bulkUser(20);
    const path = svc.file('g.csv', `user,role,expires_in,justification\n${user},refused-row,never,t\n`);
    const { url, seen } = await refusingAfter('GET /v1/me');
    const r = await svc.run(['roles', 'assign', '--file', path, '--ndjson'], {
      env: { SVC_BASE_URL: url, SVC_MAX_RETRIES: '0' },
    });
    // The read went through; the grant never reached the forwarder.
    // The reads went through (who the caller is last, before any grant: brief fixgrant4 item 3).
    expect(seen).toEqual(['GET /v1/roles?limit=200', 'GET /v1/me']);
    const rows = ndjson(r.stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ line: 2, status: 'failed', user, role: 'refused-row' });
    expect(rows[0]).not.toHaveProperty('outcome');
    // A refused connection stops the run (exit 1, a network failure): here no row was left.
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(/^0 granted, 1 failed in /);
    expect(r.stderr).not.toMatch(/unknown/);
    expect((await held(sandbox(), user)).map((a) => a.role_id)).not.toContain(role);
  });

  // attack24b F4: the platform went down mid-run and svc went on starting rows, each refused after
  // its retries. The first refused connection stops the run; the rest is left to resume.
  it('stops the run: the rows not started are not sent, and the same command resumes them', async () => {
    const role = await customRole(sandbox(), 'refused-run');
    const users = [21, 22, 23, 24].map(bulkUser);
    const path = svc.file(
      'h.csv',
      `user,role,expires_in,justification\n${users.map((u) => `${u},refused-run,never,t`).join('\n')}\n`,
    );
    const { url, seen } = await refusingAfter('GET /v1/me');
    const env = { SVC_BASE_URL: url, SVC_MAX_RETRIES: '0' };
    const r = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '1', '--json'], { env });
    // The reads went through (who the caller is last, before any grant: brief fixgrant4 item 3).
    expect(seen).toEqual(['GET /v1/roles?limit=200', 'GET /v1/me']);
    expect(r.code, r.stderr).toBe(1);
    const error = lastJson(r.stderr).error;
    expect(error).toMatchObject({ code: 'connection_refused', exit_code: 1 });
    expect(error.message).toMatch(
      /^stopped after 1 of 4: cannot reach http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED.*, so the platform is not reachable now; the items not started were not sent$/,
    );
    expect(error.hint).toMatch(
      /^once the platform answers again \(is the server running\? .*\), run the same command again .* to resume \(journal /,
    );
    for (const user of users) expect((await held(sandbox(), user)).map((a) => a.role_id)).not.toContain(role);
    // The platform back at the same address: the same command grants all four.
    const port = new URL(url).port;
    await forwardingOn(Number(port));
    const again = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '1', '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    for (const user of users) expect((await held(sandbox(), user)).map((a) => a.role_id)).toContain(role);
  });
});
