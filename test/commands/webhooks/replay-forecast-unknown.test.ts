import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { admin, deadLetteredQueue } from '../../helpers/webhooks.js';

// review14 R1: on a server whose GET /v1/me has no `permissions` (the reference shows none; the
// sandbox adds them), a caller without role.read cannot be judged: the dry run said "2 would be
// replayed … 0 would fail" without a word, and the real run failed every row 403. It now says it
// could not learn what the caller holds, so its plan is not read as checked.
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 500 } });
const svc = bulkRunner(sandbox);

/** The sandbox as a server whose /v1/me gives no permissions. */
let url = '';
const server = createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(
      ([name]) => !['host', 'connection', 'content-length'].includes(name),
    ),
  ) as Record<string, string>;
  const upstream = await fetch(`${sandbox().url}${request.url}`, {
    method: request.method,
    headers,
    ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
  });
  let text = await upstream.text();
  if (request.url === '/v1/me' && upstream.ok) {
    const { permissions: _dropped, ...me } = JSON.parse(text);
    text = JSON.stringify(me);
  }
  response.writeHead(upstream.status, {
    'content-type': upstream.headers.get('content-type') ?? 'text/plain',
  });
  response.end(text);
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A caller with webhook.manage and webhook.read alone (no role.read, no data read permission). */
let hooksOnly: Promise<Record<string, string>> | undefined;
const hooksOnlyEnv = () => {
  hooksOnly ??= (async () => {
    const role = await admin(sandbox(), 'POST', '/v1/roles', {
      name: 'hooks-only',
      permissions: ['webhook.manage', 'webhook.read'],
    });
    await admin(sandbox(), 'POST', '/v1/users/usr_compliance/roles', { role_id: role.body.id });
    return svc.env({
      SVC_TOKEN: sandbox().issueToken('usr_compliance', { expiresInSeconds: 86_400 }).token,
      SVC_BASE_URL: url,
    });
  })();
  return hooksOnly;
};

describe('replay --dlq --dry-run where what the caller holds cannot be learned', () => {
  // review15 R15-5: the counts said "2 would be replayed …, 0 would fail" as if checked (the real
  // run fails both, exit 7). They now say they were not checked against what the caller holds.
  it('says so on stderr before its plan, and its counts say the plan is unchecked (exit 0)', async () => {
    const env = await hooksOnlyEnv();
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 500 }, 2);
    const dry = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--dry-run', '--no-wait'], { env });
    expect(dry.code).toBe(0);
    const lines = dry.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^warning: could not learn what you hold \(GET \/v1\/roles: .*\), so this dry run cannot tell which replays the platform refuses you; the real run reports the platform's answers$/,
    );
    expect(lines[1]).toBe(
      'dry run: 2 would be replayed (whether they are delivered is known only when they are sent), 0 would be skipped, 0 would fail; not checked against what you hold (svc could not learn it): the platform may refuse any of them; nothing was changed',
    );
  });

  it('dlq discard --all --dry-run says the same', async () => {
    const env = await hooksOnlyEnv();
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 500 }, 2);
    const dry = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.stderr.trimEnd().split('\n').at(-1)).toBe(
      'dry run: 2 would be discarded, 0 would be skipped, 0 would fail; not checked against what you hold (svc could not learn it): the platform may refuse any of them; nothing was changed',
    );
  });
});
