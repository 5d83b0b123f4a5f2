/**
 * Every error's one line names the problem and the fix: a rate limit that outlasted svc's
 * retries (when to try again), a tenant the credential does not have (where its tenants are
 * listed), a role name that is taken (another name, or the role that has it). In-process.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { runInProcess, virtualClock } from '../helpers/context.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const REQUEST = 'request req_[0-9a-f]+';

describe('the fix half of the one line', () => {
  it('a tenant not in the credential: where its tenants are listed, exit 4', async () => {
    const wayne = tenantId('wayne-clearing');
    const r = await svc.run(['roles', 'ls'], { env: { SVC_TENANT: wayne } });
    expect([r.code, r.stdout]).toEqual([4, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: tenant ${wayne} is not one of your credential's tenants \\(HTTP 403, tenant_forbidden, ${REQUEST}\\); use a tenant your credential has \\(\`svc me\` lists them, run without this --tenant or SVC_TENANT\\), or a credential that has this tenant\\n$`,
      ),
    );
  });

  it('a role name that is taken: another name, or the role that has it, exit 6', async () => {
    const create = ['roles', 'create', '--name', 'dupe-name', '--permission', 'account.read'];
    expect((await svc.run(create)).code).toBe(0);
    const r = await svc.run(create);
    expect([r.code, r.stdout]).toEqual([6, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: a role named dupe-name already exists in this tenant \\[name: is taken\\] \\(HTTP 409, role_name_taken, ${REQUEST}\\); pick another --name, or change that role: svc roles update dupe-name\\n$`,
      ),
    );
  });

  it('roles update --name to a taken name: the same fix', async () => {
    await svc.run(['roles', 'create', '--name', 'taken-a', '--permission', 'account.read']);
    await svc.run(['roles', 'create', '--name', 'taken-b', '--permission', 'account.read']);
    const r = await svc.run(['roles', 'update', 'taken-a', '--name', 'taken-b']);
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/; pick another --name, or change that role: svc roles update taken-b\n$/);
  });
});

describe('a rate limit that outlasts the retries', () => {
  let server: Server;
  let retryAfter: string | undefined;
  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(429, {
        'content-type': 'application/json',
        ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }),
      });
      response.end(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ['7', 'wait 7 s (the server asks for that in Retry-After) and run the command again'],
    [undefined, 'wait a minute and run the command again'],
  ])('Retry-After %s: when to try again, exit 1', async (header, fix) => {
    retryAfter = header;
    const env = {
      ...svc.env(),
      SVC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      SVC_TOKEN: 'abcdefghijkl',
    };
    const r = await runInProcess(['tenants', 'ls'], env, { clock: virtualClock() });
    expect([r.code, r.stdout]).toEqual([1, '']);
    // Each wait longer than 2 s is said first (Retry-After 7; without one, backoff is shorter).
    const waits = header
      ? [1, 2, 3].map((n) => `rate limited (HTTP 429); retrying in 7 s (${n} of 3)\n`)
      : [];
    expect(r.stderr).toBe(
      `${waits.join('')}error: slow down (HTTP 429, rate_limited); the server limits how fast it is called and svc's retries ran out: ${fix}\n`,
    );
  });
});
