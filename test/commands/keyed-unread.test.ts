/**
 * A creation or rotation under an idempotency key answered 2xx with a body svc cannot read (a
 * proxy's text/plain "OK", an empty 201): an unknown outcome, as a lost answer is, and one rule for
 * both (review21 F4): its hint names the key, the one way to the secret the platform made (or, for
 * a record, the key svc put in the data, which the user cannot know). The proxy passes each write
 * on (the sandbox makes it) and answers it with `body` instead; the re-run goes to the sandbox.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACME, bulkRunner } from '../helpers/bulk.js';
import { useUnreadWrites } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { admin, createWebhook } from '../helpers/webhooks.js';

const sandbox = useSandbox();
const svc = bulkRunner(sandbox);
const { proxy, answerWrites } = useUnreadWrites(sandbox);
/** Through the proxy, answered with `body`. */
async function unread(argv: string[], status: number, body: string, type?: string) {
  answerWrites({ status, body, type });
  try {
    return await svc.run(argv, { env: { SVC_BASE_URL: proxy().url } });
  } finally {
    answerWrites(undefined);
  }
}
const KEY = /--idempotency-key (svc_[0-9a-f-]{36})/;
let files = 0;
const secretFile = () => `${svc.dir}/secret-${++files}`;

describe('a keyed creation answered 2xx with a body svc cannot read names its key', () => {
  it('webhooks create --secret-file, text/plain 201: the key; its re-run writes the secret of the one webhook', async () => {
    const url = 'https://h.example/unread-create';
    const argv = ['webhooks', 'create', '--url', url, '--event-type', 'webhook.test'];
    const r = await unread([...argv, '--secret-file', secretFile()], 201, 'OK', 'text/plain');
    expect([r.code, r.stdout]).toEqual([1, '']);
    const key = KEY.exec(r.stderr)?.[1];
    expect(r.stderr).toMatch(
      /^error: the server's answer to POST \/v1\/webhooks is not a JSON object \(text\/plain\); svc saved and printed nothing, but the server answered 201(?: \(request \w+\))? and may have made the change \(`svc webhooks ls` shows whether it was\): /,
    );
    expect(r.stderr.replace(/^.*shows whether it was\): /, '')).toBe(
      `re-run with --idempotency-key ${key} to get the same answer, secret included, without creating a second webhook (the platform keeps it for 24 hours)\n`,
    );
    const file = secretFile();
    const again = await svc.run([...argv, '--idempotency-key', key!, '--secret-file', file]);
    expect(again.code, again.stderr).toBe(0);
    const hooks = (await admin(sandbox(), 'GET', '/v1/webhooks')).body.items as Array<{
      id: string;
      url: string;
    }>;
    const made = hooks.filter((h) => h.url === url);
    expect(made).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).toMatch(/^whsec_/);
  });

  it.each([
    [
      'oauth create',
      [
        'oauth',
        'create',
        '--name',
        'unread',
        '--redirect-uri',
        'https://r.example/cb',
        '--scope',
        'read:exceptions',
      ],
      'secret',
      'client',
      'oauth ls',
    ],
    [
      'tenants api-keys create',
      ['tenants', 'api-keys', 'create', ACME, '--kind', 'publishable'],
      'the key',
      'API key',
      `tenants api-keys ls ${ACME}`,
    ],
  ])('%s, an empty 201: the key that gets the same answer', async (_name, argv, secret, noun, check) => {
    const r = await unread([...argv, '--show-secret'], 201, '');
    expect([r.code, r.stdout]).toEqual([1, '']);
    const key = KEY.exec(r.stderr)?.[1];
    expect(key).toBeDefined();
    expect(r.stderr).toContain(
      `may have made the change (\`svc ${check}\` shows whether it was): re-run with --idempotency-key ${key} to get the same answer, ${secret} included, without creating a second ${noun} (the platform keeps it for 24 hours)\n`,
    );
  });

  it('records create, text/plain 201 and an empty one: the idempotency_key svc put in the data', async () => {
    for (const [status, body, type] of [
      [201, 'OK', 'text/plain'],
      [201, '', undefined],
    ] as const) {
      const argv = ['records', 'create', 'reconciliations', '--data', `{"name":"unread ${type}"}`];
      const r = await unread(argv, status, body, type);
      expect([r.code, r.stdout]).toEqual([1, '']);
      const key = /"idempotency_key":"(svc_[0-9a-f-]{36})" in the data/.exec(r.stderr)?.[1];
      expect(r.stderr).toContain(
        `(\`svc records ls reconciliations\` shows whether it was): re-run with "idempotency_key":"${key}" in the data to get the same answer without creating a second record (the platform keeps it for 24 hours)\n`,
      );
      const again = await svc.run([
        'records',
        'create',
        'reconciliations',
        '--data',
        `{"name":"unread ${type}","idempotency_key":"${key}"}`,
        '--json',
      ]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('was already created by an earlier run with this idempotency key');
    }
  });
});

describe('a rotation answered 2xx with a body svc cannot read names its key and how to see it', () => {
  it('webhooks rotate-secret --secret-file, text/plain 200: get shows it; the re-run writes the new secret, rotated once', async () => {
    const { id } = await createWebhook(sandbox(), 'https://h.example/unread-rotate');
    const file = secretFile();
    const r = await unread(['webhooks', 'rotate-secret', id, '--secret-file', file], 200, 'OK', 'text/plain');
    expect([r.code, r.stdout]).toEqual([1, '']);
    const key = KEY.exec(r.stderr)?.[1];
    expect(r.stderr.replace(/^.*and may have made the change /, '')).toBe(
      `(\`svc webhooks get ${id}\` shows whether it was): webhook ${id}'s signing secret may already have been rotated out (it signs for 24 hours more); ` +
        `re-run with: svc webhooks rotate-secret ${id} --idempotency-key ${key} --secret-file ${file} to get the new secret without rotating again (the platform keeps it for 24 hours)\n`,
    );
    const rotated = (await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).body.secret_rotated_at;
    expect(rotated).toBeTruthy();
    const again = await svc.run([
      'webhooks',
      'rotate-secret',
      id,
      '--idempotency-key',
      key!,
      '--secret-file',
      file,
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^whsec_/);
    expect((await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).body.secret_rotated_at).toBe(rotated);
  });
});
