import { describe, expect, it } from 'vitest';
import { staticCredentials } from '../../src/auth/credentials.js';
import { exitCodeFor } from '../../src/errors.js';
import {
  ApiKeyNotFoundError,
  OAuthClientNotFoundError,
  RecordDeletedError,
  RecordNotFoundError,
} from '../../src/platform/errors.js';
import { ACME, usePlatform } from '../helpers/platform.js';
import { useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox({ tenants: 7 });
const client = usePlatform(sandbox);

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('platform.tenants', () => {
  it('lists a page, and every tenant page after page', async () => {
    const { platform } = client();
    const page = await platform.tenants.list({ limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.next_cursor).toEqual(expect.any(String));
    const ids: string[] = [];
    for await (const tenant of platform.tenants.listAll({ limit: 2 })) ids.push(tenant.id);
    expect(ids).toContain(ACME);
    expect(new Set(ids).size).toBe(ids.length);
    const pro: string[] = [];
    for await (const tenant of platform.tenants.listAll({ subscription_tier: 'pro' }))
      pro.push(tenant.subscription_tier);
    expect(pro.length).toBeGreaterThan(0);
    expect(new Set(pro)).toEqual(new Set(['pro']));
  });

  it('issues, lists and revokes API keys', async () => {
    const { platform } = client();
    const key = await platform.tenants.apiKeys.create(ACME, { kind: 'publishable', name: 'platform test' });
    expect(key.key).toMatch(/^svc_pk_/);
    const keys = await platform.tenants.apiKeys.list(ACME);
    expect(keys.items.map((k) => k.id)).toContain(key.id);
    expect(JSON.stringify(keys)).not.toContain(key.key);
    expect((await platform.tenants.apiKeys.revoke(ACME, key.id)).revoked_at).toEqual(expect.any(String));
    expect(await failure(platform.tenants.apiKeys.revoke(ACME, 'key_nope'))).toBeInstanceOf(
      ApiKeyNotFoundError,
    );
  });
});

describe('platform.me and platform.oauth', () => {
  it('reads the identity of the profile credential, or of a token given per call', async () => {
    const { platform } = client();
    expect((await platform.me.get()).id).toBe('usr_admin');
    const other = sandbox().issueToken('usr_analyst').token;
    expect((await platform.me.get({ credentials: staticCredentials(other, 'test') })).id).toBe('usr_analyst');
    const rejected = await failure(
      platform.me.get({ credentials: staticCredentials('not-a-token', 'test') }),
    );
    expect(exitCodeFor(rejected)).toBe(3);
  });

  it('creates, reads, lists and rotates OAuth clients', async () => {
    const { platform } = client();
    const created = await platform.oauth.clients.create({
      name: 'platform test',
      redirect_uris: ['http://127.0.0.1/callback'],
      scopes: ['read:reconciliations'],
    });
    expect(created.client_secret).toEqual(expect.any(String));
    expect((await platform.oauth.clients.get(created.client_id)).name).toBe('platform test');
    expect((await platform.oauth.clients.list()).items.map((c) => c.client_id)).toContain(created.client_id);
    const rotated = await platform.oauth.clients.rotateSecret(created.client_id);
    expect(rotated.client_secret).not.toBe(created.client_secret);
    expect(await failure(platform.oauth.clients.get('cli_nope'))).toBeInstanceOf(OAuthClientNotFoundError);
  });
});

describe('platform.records', () => {
  it('creates, reads, merges, lists and soft-deletes a record', async () => {
    const { platform } = client();
    const record = await platform.records.create('reconciliations', { name: 'EUR close', amount: 12 });
    expect(record).toMatchObject({ surface: 'reconciliations', name: 'EUR close', amount: 12 });
    expect((await platform.records.get('reconciliations', record.id)).name).toBe('EUR close');
    const merged = await platform.records.update('reconciliations', record.id, {
      amount: null,
      state: 'open',
    });
    expect(merged).toMatchObject({ name: 'EUR close', state: 'open' });
    expect(merged).not.toHaveProperty('amount');
    const listed: string[] = [];
    for await (const r of platform.records.listAll('reconciliations', { limit: 1 })) listed.push(r.id);
    expect(listed).toContain(record.id);
    expect((await platform.records.list('reconciliations')).items.map((r) => r.id)).toContain(record.id);
    const deleted = await platform.records.delete('reconciliations', record.id);
    expect(deleted.soft_delete).toBe(true);
    expect(await failure(platform.records.update('reconciliations', record.id, { a: 1 }))).toBeInstanceOf(
      RecordDeletedError,
    );
    expect(await failure(platform.records.get('reconciliations', 'rec_nope'))).toBeInstanceOf(
      RecordNotFoundError,
    );
  });
});
