import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CLI_CLIENT_ID } from '../../src/sandbox/domain/oauth.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { authorizationCode, tokenRequest } from '../helpers/oauth.js';
import { adminGrant, call, useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();
const tenant = tenantId('acme-treasury');

describe('idempotency keys on every POST', () => {
  const post = (body: unknown, headers?: Record<string, string>) =>
    call(sandbox(), 'POST', '/v1/exceptions', {
      token: sandbox().adminToken,
      tenant,
      body,
      ...(headers ? { headers } : {}),
    });

  it('refuses a POST without a key (400 idempotency_key_required)', async () => {
    const response = await post({ title: 'no key' });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('idempotency_key_required');
    expect(sandbox().state.records.count(tenant, 'exceptions')).toBe(0);
  });

  it('replays the stored response for the same key and body', async () => {
    const first = await post({ title: 'a', idempotency_key: 'same-1' });
    const second = await post({ idempotency_key: 'same-1', title: 'a' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(
      sandbox()
        .state.records.list(tenant, 'exceptions')
        .filter((e) => e.record.title === 'a'),
    ).toHaveLength(1);
  });

  it('refuses the same key with different parameters (409 idempotency_key_reused)', async () => {
    await post({ title: 'b', idempotency_key: 'same-2' });
    const response = await post({ title: 'c', idempotency_key: 'same-2' });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('idempotency_key_reused');
  });

  it('refuses a duplicate while the first is still running (409 idempotency_request_in_progress)', async () => {
    // The first is held (its key registered) until the duplicate has been answered: never latency
    // that is usually long enough.
    const held = sandbox().faults.hold((method, url) => method === 'POST' && url === '/v1/exceptions');
    try {
      const slow = post({ title: 'd', idempotency_key: 'same-3' });
      await held.arrived;
      const duplicate = await post({ title: 'd', idempotency_key: 'same-3' });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.error.code).toBe('idempotency_request_in_progress');
      held.release();
      expect((await slow).status).toBe(201);
    } finally {
      held.release();
    }
    const after = await post({ title: 'd', idempotency_key: 'same-3' });
    expect(after.headers.get('idempotent-replayed')).toBe('true');
  });

  it('wants the key in the body; a header, when also sent, must match it', async () => {
    const headerOnly = await post({ title: 'e' }, { 'idempotency-key': 'hdr-1' });
    expect(headerOnly.status).toBe(400);
    expect(headerOnly.body.error.code).toBe('idempotency_key_required');
    const matching = await post({ title: 'e', idempotency_key: 'hdr-2' }, { 'idempotency-key': 'hdr-2' });
    expect(matching.status).toBe(201);
    const mismatch = await post({ title: 'e', idempotency_key: 'body-1' }, { 'idempotency-key': 'hdr-3' });
    expect(mismatch.status).toBe(400);
  });

  it('does not store 5xx answers, so a retry runs the request', async () => {
    sandbox().faults.update({ fail_rate: 1, phase: 'before', retry_after: '0' });
    const failed = await post({ title: 'h', idempotency_key: 'retry-1' });
    sandbox().faults.update({ fail_rate: 0 });
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('0');
    const retried = await post({ title: 'h', idempotency_key: 'retry-1' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('stores the answer before an "after" fault loses it: the retry replays it, nothing is done twice', async () => {
    sandbox().faults.update({ fail_rate: 1, phase: 'after' });
    const lost = await post({ title: 'i', idempotency_key: 'after-1' });
    sandbox().faults.update({ fail_rate: 0 });
    expect(lost.status).toBe(503);
    const retried = await post({ title: 'i', idempotency_key: 'after-1' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(
      sandbox()
        .state.records.list(tenant, 'exceptions')
        .filter((e) => e.record.title === 'i'),
    ).toHaveLength(1);
  });

  it('scopes keys to the caller: another user may use the same key', async () => {
    const analyst = sandbox().issueToken('usr_analyst').token;
    const mine = await post({ title: 'f', idempotency_key: 'shared' });
    const theirs = await call(sandbox(), 'POST', '/v1/exceptions', {
      token: analyst,
      tenant,
      body: { title: 'g', idempotency_key: 'shared' },
    });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('keeps the answer of a request whose client went away: the retry replays it, nothing is done twice', async () => {
    // Held (its key registered) until the sandbox has seen its client go: the handler runs after that.
    const held = sandbox().faults.hold((method, url) => method === 'POST' && url === '/v1/exceptions');
    const aborted = new AbortController();
    try {
      const first = fetch(`${sandbox().url}/v1/exceptions`, {
        method: 'POST',
        signal: aborted.signal,
        headers: {
          authorization: `Bearer ${sandbox().adminToken}`,
          'x-tenant-id': tenant,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ title: 'gone', idempotency_key: 'abort-1' }),
      });
      const { gone } = await held.arrived;
      aborted.abort();
      await expect(first).rejects.toThrow();
      await gone;
    } finally {
      held.release();
    }
    // As a client does: while the first is still running, the retry is told so; then it gets its answer.
    let retried = await post({ title: 'gone', idempotency_key: 'abort-1' });
    for (let tries = 0; retried.status === 409 && tries < 1000; tries++) {
      expect(retried.body.error.code).toBe('idempotency_request_in_progress');
      await sleep(10);
      retried = await post({ title: 'gone', idempotency_key: 'abort-1' });
    }
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(
      sandbox()
        .state.records.list(tenant, 'exceptions')
        .filter((e) => e.record.title === 'gone'),
    ).toHaveLength(1);
  });

  it('does not remember a request refused by validation: the corrected request runs with the same key', async () => {
    const roles = (body: unknown) =>
      call(sandbox(), 'POST', '/v1/roles', { token: sandbox().adminToken, tenant, body });
    const refused = await roles({
      name: 'Bad Name',
      permissions: ['exception.read'],
      idempotency_key: 'fix-1',
    });
    expect(refused.status).toBe(400);
    const corrected = await roles({
      name: 'good-name',
      permissions: ['exception.read'],
      idempotency_key: 'fix-1',
    });
    expect(corrected.status, corrected.text).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
  });

  it('remembers a refusal its handler made (409 role_name_taken): the same key replays it after the cause is gone', async () => {
    const roles = (body: unknown) =>
      call(sandbox(), 'POST', '/v1/roles', { token: sandbox().adminToken, tenant, body });
    const first = await roles({
      name: 'taken-once',
      permissions: ['exception.read'],
      idempotency_key: 'taken-1',
    });
    expect(first.status, first.text).toBe(201);
    const body = { name: 'taken-once', permissions: ['exception.read'], idempotency_key: 'taken-2' };
    const refused = await roles(body);
    expect(refused.status).toBe(409);
    const gone = await call(sandbox(), 'DELETE', `/v1/roles/${first.body.id}`, {
      token: sandbox().adminToken,
      tenant,
    });
    expect(gone.status, gone.text).toBeLessThan(300);
    // A client must not take this for the answer to a request made now (svc apply asks again
    // under a key derived from it: test/commands/apply/concurrent.test.ts).
    const replayed = await roles(body);
    expect(replayed.status).toBe(409);
    expect(replayed.text).toBe(refused.text);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });

  it('scopes keys to the operation: the same key on two operations runs both', async () => {
    const exception = await post({ title: 'op', idempotency_key: 'per-op' });
    const reconciliation = await call(sandbox(), 'POST', '/v1/reconciliations', {
      token: sandbox().adminToken,
      tenant,
      body: { name: 'op', idempotency_key: 'per-op' },
    });
    expect([exception.status, reconciliation.status]).toEqual([201, 201]);
    expect(reconciliation.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('one-time secrets and replays', () => {
  const createClient = (token: string, key: string) =>
    call(sandbox(), 'POST', '/v1/oauth/clients', {
      token,
      tenant,
      body: {
        name: 'Replayed vendor',
        redirect_uris: ['https://vendor.example/cb'],
        scopes: ['read:exceptions'],
        idempotency_key: key,
      },
    });

  it('returns the secret again to the same principal within the window, and to no one else', async () => {
    const first = await createClient(sandbox().adminToken, 'secret-1');
    expect(first.status).toBe(201);
    const again = await createClient(sandbox().adminToken, 'secret-1');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.client_secret).toBe(first.body.client_secret);

    // Another administrator (an API key may not create clients: attack17 A4).
    await adminGrant(sandbox(), tenant, 'usr_analyst', 'tenant_admin');
    const otherPrincipal = await createClient(sandbox().issueToken('usr_analyst').token, 'secret-1');
    expect(otherPrincipal.status).toBe(201);
    expect(otherPrincipal.headers.get('idempotent-replayed')).toBeNull();
    expect(otherPrincipal.body.client_secret).not.toBe(first.body.client_secret);

    // The same user through another client (svc login's first-party client) is another principal.
    const { code, redirectUri, verifier } = await authorizationCode(
      sandbox(),
      { client_id: CLI_CLIENT_ID },
      { scope: 'admin' },
    );
    const viaCli = await tokenRequest(sandbox(), {
      grant_type: 'authorization_code',
      client_id: CLI_CLIENT_ID,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    const sameUserOtherClient = await createClient(viaCli.body.access_token, 'secret-1');
    expect(sameUserOtherClient.status).toBe(201);
    expect(sameUserOtherClient.body.client_secret).not.toBe(first.body.client_secret);

    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 24 * 3600 + 1 } });
    const afterWindow = await createClient(sandbox().issueToken('usr_admin').token, 'secret-1');
    expect(afterWindow.status).toBe(201);
    expect(afterWindow.headers.get('idempotent-replayed')).toBeNull();
    expect(afterWindow.body.client_secret).not.toBe(first.body.client_secret);
  });
});

describe('an optional Idempotency-Key header on DELETE (and PATCH)', () => {
  const as = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    call(sandbox(), method, path, {
      token: sandbox().adminToken,
      tenant,
      headers,
      ...(body === undefined ? {} : { body }),
    });
  const webhook = async (tag: string) =>
    (
      await as(
        'POST',
        '/v1/webhooks',
        {},
        {
          url: `https://hooks.example.com/${tag}`,
          event_types: ['webhook.test'],
          idempotency_key: tag,
        },
      )
    ).body.id as string;

  it('answers a repeat from its record, even when a fault replaced the first answer', async () => {
    const id = await webhook('del-key-1');
    sandbox().faults.update({ fail_rate: 1, phase: 'after', retry_after: '0' });
    const lost = await as('DELETE', `/v1/webhooks/${id}`, { 'idempotency-key': 'del-1' });
    sandbox().faults.update({ fail_rate: 0 });
    expect(lost.status).toBe(503);
    const retried = await as('DELETE', `/v1/webhooks/${id}`, { 'idempotency-key': 'del-1' });
    expect([retried.status, retried.headers.get('idempotent-replayed'), retried.body.id]).toEqual([
      200,
      'true',
      id,
    ]);
    // Another key, or none, runs again: the webhook is gone.
    expect((await as('DELETE', `/v1/webhooks/${id}`, { 'idempotency-key': 'del-2' })).status).toBe(404);
    expect((await as('DELETE', `/v1/webhooks/${id}`)).status).toBe(404);
  });

  it('refuses the same key on another path (409 idempotency_key_reused) and an empty key (400)', async () => {
    const [a, b] = [await webhook('del-key-2'), await webhook('del-key-3')];
    expect((await as('DELETE', `/v1/webhooks/${a}`, { 'idempotency-key': 'del-3' })).status).toBe(200);
    const reused = await as('DELETE', `/v1/webhooks/${b}`, { 'idempotency-key': 'del-3' });
    expect([reused.status, reused.body.error.code]).toEqual([409, 'idempotency_key_reused']);
    expect((await as('DELETE', `/v1/webhooks/${b}`, { 'idempotency-key': ' ' })).status).toBe(400);
  });

  it('replays a PATCH with the same key and body', async () => {
    const id = await webhook('patch-key-1');
    const first = await as(
      'PATCH',
      `/v1/webhooks/${id}`,
      { 'idempotency-key': 'patch-1' },
      { description: 'x' },
    );
    const again = await as(
      'PATCH',
      `/v1/webhooks/${id}`,
      { 'idempotency-key': 'patch-1' },
      { description: 'x' },
    );
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([
      200,
      200,
      'true',
    ]);
  });
});
