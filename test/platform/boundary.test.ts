/**
 * The platform client against servers other than the sandbox: a hostile one whose 2xx answers
 * lack fields (the boundary check must refuse them), and reasonable ones (extra fields, `data`
 * lists) that must keep working. A real HTTP server on loopback plays each.
 */
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/errors.js';
import { OutcomeUnknownError } from '../../src/http/errors.js';
import { BadResponseError } from '../../src/http/response.js';
import { renderError } from '../../src/output/errors.js';
import { AssignmentExistsError, InvalidResponseError, RoleNotFoundError } from '../../src/platform/errors.js';
import { runInProcess } from '../helpers/context.js';
import { usePlatform } from '../helpers/platform.js';
import { tempDir } from '../helpers/temp.js';

type Answer = { status: number; body: unknown; headers?: Record<string, string> };
const answers = new Map<string, Answer | ((req: IncomingMessage) => Answer)>();
const seen: string[] = [];

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  req.resume();
  req.on('end', () => {
    const key = `${req.method} ${req.url}`;
    seen.push(key);
    const found = answers.get(key) ?? answers.get(`${req.method} ${req.url?.split('?')[0]}`);
    const answer =
      typeof found === 'function' ? found(req) : (found ?? { status: 404, body: { error: 'nope' } });
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      'content-type': 'application/json',
      'x-request-id': 'req_hostile',
      ...answer.headers,
    });
    res.end(text);
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const client = usePlatform(() => ({ url: url(), adminToken: 'tok_test' }));

const role = {
  id: 'role_1',
  name: 'fx-desk',
  description: '',
  kind: 'custom',
  scope: 'tenant',
  permissions: ['exception.read'],
  tenant_id: 't1',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  created_by: 'usr_admin',
  deleted_at: null,
};
const { id: _id, ...roleWithoutId } = role;

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('a hostile server', () => {
  it('a 201 whose body lacks "id" is refused with one line naming the operation and the field, exit 1', async () => {
    answers.set('POST /v1/roles', { status: 201, body: roleWithoutId });
    const error = await failure(
      client().platform.roles.create({ name: 'fx-desk', permissions: ['exception.read'] }),
    );
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(exitCodeFor(error)).toBe(1);
    expect(renderError(error, { json: false, debug: false })).toBe(
      `error: the server's answer to POST /v1/roles lacks "id" (string); svc saved and printed nothing, but the server answered 201 (request req_hostile) and may have made the change: check before running the command again (\`svc roles get fx-desk\` shows whether it was)\n`,
    );
  });

  it.each([
    ['a 200 whose body lacks "id"', { status: 200, body: roleWithoutId }, 'lacks "id" (string)'],
    [
      'a mistyped field',
      { status: 200, body: { ...role, permissions: 'all' } },
      'has "permissions" as a string (expected array)',
    ],
  ])('%s from GET is refused', async (_what, answer, problem) => {
    answers.set('GET /v1/roles/role_1', answer);
    const error = await failure(client().platform.roles.get('role_1'));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toBe(`the server's answer to GET /v1/roles/role_1 ${problem}`);
    expect((error as InvalidResponseError).hint).toBe(
      `svc believes none of it; is ${url()} the platform API? check --base-url (request req_hostile)`,
    );
  });

  // Answers that are not a JSON document at all never reach the schema check: the HTTP layer
  // refuses them first (src/http/response.ts), for platform calls and raw ones alike.
  it.each([
    ['an HTML page', { status: 200, body: '<html>maintenance</html>' }],
    ['an empty body', { status: 200, body: '' }],
    ['a JSON null', { status: 200, body: null }],
  ])('%s from GET is refused by the HTTP layer', async (_what, answer) => {
    answers.set('GET /v1/roles/role_1', answer);
    const error = await failure(client().platform.roles.get('role_1'));
    expect(error).toBeInstanceOf(BadResponseError);
    expect(exitCodeFor(error)).toBe(1);
    expect((error as Error).message).toMatch(/^the server answered 200 /);
  });

  it('a bad item on a later page stops the listing before that page is shown', async () => {
    const tenant = {
      id: 'a',
      slug: 'a',
      display_name: 'A',
      default_currency: 'EUR',
      time_zone: 'UTC',
      role: 'tenant_admin',
      created_at: '2026-01-01T00:00:00Z',
      subscription_tier: 'pro',
    };
    answers.set('GET /v1/tenants?limit=1', { status: 200, body: { items: [tenant], next_cursor: 'c2' } });
    answers.set('GET /v1/tenants?limit=1&cursor=c2', {
      status: 200,
      body: {
        items: [
          { ...tenant, id: 'b' },
          { ...tenant, id: undefined },
        ],
        next_cursor: null,
      },
    });
    const got: string[] = [];
    const error = await failure(
      (async () => {
        for await (const t of client().platform.tenants.listAll({ limit: 1 })) got.push(t.id);
      })(),
    );
    expect(got).toEqual(['a']);
    expect((error as Error).message).toBe(
      `the listing is incomplete: it stopped after 1 item, when the next page failed: the server's answer to GET /v1/tenants lacks "items[1].id" (string)`,
    );
  });
});

describe('commands behind the boundary', () => {
  it('`svc roles delete` answered 200 `{}` (no record, nothing against it) says so, exit 0', async () => {
    answers.set('GET /v1/roles/fx-desk', { status: 200, body: role });
    answers.set('DELETE /v1/roles/role_1', { status: 200, body: {} });
    const dir = tempDir('svc-boundary-');
    const result = await runInProcess(['roles', 'delete', 'fx-desk', '--yes'], {
      SVC_BASE_URL: url(),
      SVC_TOKEN: 'tok_test',
      SVC_TENANT: '00000000-0000-4000-8000-000000000001',
      SVC_CONFIG_DIR: join(dir, 'config'),
    });
    rmSync(dir, { recursive: true, force: true });
    // review19 F2: the reference shows no DELETE body; `{}` says nothing against the deletion.
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr:
        '✓ role fx-desk (role_1) in 00000000-0000-4000-8000-000000000001 is gone: the server answered HTTP 200 that it was deleted, in a shape other than the record svc reads\n',
    });
  });
});

describe('a reasonable server that is not the sandbox', () => {
  it('answers GET /v1/me without the sandbox-only credential field', async () => {
    const me = { id: 'u1', type: 'user', name: 'Generic User', tenant_id: null, tenants: [] };
    answers.set('GET /v1/me', { status: 200, body: me });
    expect(await client().platform.me.get()).toEqual(me);
    answers.set('GET /v1/me', { status: 200, body: { ...me, id: undefined } });
    expect(((await failure(client().platform.me.get())) as Error).message).toBe(
      `the server's answer to GET /v1/me lacks "id" (string)`,
    );
  });

  it('keeps unknown fields, reads `data` lists and bare arrays as items', async () => {
    answers.set('GET /v1/roles/role_1', { status: 200, body: { ...role, color: 'blue' } });
    expect(await client().platform.roles.get('role_1')).toEqual({ ...role, color: 'blue' });
    answers.set('GET /v1/roles', { status: 200, body: { data: [role], next_cursor: null, has_more: false } });
    expect((await client().platform.roles.list()).items).toEqual([role]);
    // A bare array, one item of it twice: read as items, the repeat kept once (brief paging23).
    answers.set('GET /v1/roles', { status: 200, body: [role, { ...role, id: 'role_2' }, role] });
    const all: string[] = [];
    for await (const r of client().platform.roles.listAll()) all.push(r.id);
    expect(all).toEqual(['role_1', 'role_2']);
  });

  it('returns the payload bytes exactly, unchecked', async () => {
    answers.set('GET /v1/webhooks/wh_1/deliveries/dlv_1/payload', { status: 200, body: '{"a": 1}\n' });
    expect(await client().platform.webhooks.deliveries.payload('wh_1', 'dlv_1')).toBe('{"a": 1}\n');
  });

  it('types known error codes by code and a plain 404 by the resource', async () => {
    answers.set('GET /v1/roles/gone', { status: 404, body: { message: 'Not here' } });
    expect(await failure(client().platform.roles.get('gone'))).toBeInstanceOf(RoleNotFoundError);
    // The client's bounded wait for its earlier attempt (12 waits) ends the same whatever the
    // waits; Retry-After: 0 keeps them short even on a real clock.
    answers.set('POST /v1/users/u1/roles', {
      status: 409,
      body: { error: { code: 'idempotency_request_in_progress', message: 'still running' } },
      headers: { 'retry-after': '0' },
    });
    const busy = await failure(client().platform.roles.assign('u1', { role_id: 'r' }));
    // Still running after the wait: an unknown outcome, not a refusal (attack18b #11).
    expect(busy).toBeInstanceOf(OutcomeUnknownError);
    expect((busy as OutcomeUnknownError).answer?.code).toBe('idempotency_request_in_progress');
    expect(exitCodeFor(busy)).toBe(1);
    answers.set('POST /v1/users/u1/roles', {
      status: 409,
      body: {
        error: {
          code: 'assignment_exists',
          message: 'held',
          details: [{ field: 'role_id', message: 'held' }],
        },
      },
    });
    const held = await failure(client().platform.roles.assign('u1', { role_id: 'r' }));
    expect(held).toBeInstanceOf(AssignmentExistsError);
    expect((held as AssignmentExistsError).assignment).toBeUndefined();
    // The same code with another status is not what the catalog means: it stays generic.
    answers.set('POST /v1/users/u1/roles', {
      status: 400,
      body: { error: { code: 'assignment_exists', message: 'odd' } },
    });
    expect(await failure(client().platform.roles.assign('u1', { role_id: 'r' }))).not.toBeInstanceOf(
      AssignmentExistsError,
    );
  });
});
