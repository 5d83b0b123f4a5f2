/**
 * A secret shown once whose output is lost (stdout on a full disk, review-b s8 8): "check the result
 * before running the command again" cannot help, because the platform never shows that secret
 * again. Each verb that prints a secret once says the secret is lost and how to get a usable one;
 * the command it names works. Where the secret went to --secret-file, the output was not its only
 * copy and the usual words stay.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACME, useSandboxContext } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';
import { admin } from '../helpers/webhooks.js';

const svc = useSandboxContext();
const full = { stdoutFails: 'ENOSPC' };
/** `created`: the prefix of the id the answer names (`wh`: `answered 201: created wh_…`). */
const made = (path: string, status: number, created?: string) =>
  `^error: cannot write to stdout \\(ENOSPC\\), but the change was made: POST ${path} answered ${status}${created ? `: created ${created}_\\w+` : ''} \\(request req_[0-9a-f]+\\); `;
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function webhook(): Promise<string> {
  const r = await admin(svc.sandbox(), 'POST', '/v1/webhooks', {
    url: 'https://h.example/lost',
    event_types: ['exception.created'],
  });
  return r.body.id as string;
}

describe('a secret shown once, its output lost', () => {
  it('webhooks rotate-secret --show-secret: the new secret is lost; restore-secret puts the previous one back', async () => {
    const id = await webhook();
    const before = (await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).body.secret_rotated_at;
    const r = await svc.run(['webhooks', 'rotate-secret', id, '--show-secret'], full);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        made(`/v1/webhooks/${id}/rotate-secret`, 200) +
          escaped(
            `its output was the only copy of the new signing secret, which is lost now; put the previous one back with: svc api POST /v1/webhooks/${id}/restore-secret, then rotate again with --secret-file PATH\n`,
          ) +
          '$',
      ),
    );
    const undo = await svc.run(['api', 'POST', `/v1/webhooks/${id}/restore-secret`]);
    expect(undo.code, undo.stderr).toBe(0);
    expect((await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).body.secret_rotated_at).toBe(before);
  });

  it.each([[[]], [['--json']]])(
    'webhooks create --show-secret %j: get a new secret with rotate-secret',
    async (flags) => {
      const r = await svc.run(
        [
          'webhooks',
          'create',
          '--url',
          'https://h.example/c',
          '--event-type',
          'exception.created',
          '--show-secret',
          ...flags,
        ],
        full,
      );
      expect([r.code, r.stdout]).toEqual([1, '']);
      const id = /rotate-secret (wh_\w+)/.exec(r.stderr)?.[1];
      expect((await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).body.url).toBe('https://h.example/c');
      const said = `its output was the only copy of webhook ${id}'s signing secret, which is lost now; get a new one with: svc webhooks rotate-secret ${id} --secret-file PATH`;
      if (flags.length) expect(JSON.parse(r.stderr).error.hint).toBe(said);
      else expect(r.stderr).toMatch(new RegExp(`${made('/v1/webhooks', 201, 'wh')}${escaped(said)}\\n$`));
    },
  );

  it('oauth create: get a new client secret with rotate-secret', async () => {
    const r = await svc.run(
      [
        'oauth',
        'create',
        '--name',
        'Lost',
        '--redirect-uri',
        'https://v.example/cb',
        '--scope',
        'read:exceptions',
        '--show-secret',
      ],
      full,
    );
    expect([r.code, r.stdout]).toEqual([1, '']);
    const client = (await admin(svc.sandbox(), 'GET', '/v1/oauth/clients')).body.items.find(
      (c: { name: string }) => c.name === 'Lost',
    );
    expect(r.stderr).toMatch(
      new RegExp(
        made('/v1/oauth/clients', 201) +
          escaped(
            `its output was the only copy of OAuth client ${client.client_id}'s secret, which is lost now; get a new one with: svc oauth rotate-secret ${client.client_id} --secret-file PATH --yes\n`,
          ) +
          '$',
      ),
    );
  });

  it('oauth rotate-secret: rotate again', async () => {
    const created = await admin(svc.sandbox(), 'POST', '/v1/oauth/clients', {
      name: 'Rot',
      redirect_uris: ['https://v.example/cb'],
      scopes: ['read:exceptions'],
    });
    const id = created.body.client_id as string;
    const r = await svc.run(['oauth', 'rotate-secret', id, '--yes', '--show-secret'], full);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        made(`/v1/oauth/clients/${id}/rotate-secret`, 200) +
          escaped(
            `its output was the only copy of OAuth client ${id}'s new secret, which is lost now; rotate again with: svc oauth rotate-secret ${id} --secret-file PATH --yes\n`,
          ) +
          '$',
      ),
    );
    // The command as printed works from a script (no terminal to confirm on).
    const file = join(tempDir('svc-lost-'), 'client.secret');
    const printed = /rotate again with: svc (.+)\n$/.exec(r.stderr)![1]!.split(' ');
    const again = await svc.run(printed.map((word) => (word === 'PATH' ? file : word)));
    expect(again.code, again.stderr).toBe(0);
  });

  it('tenants api-keys create: revoke the key and create another', async () => {
    const r = await svc.run(
      ['tenants', 'api-keys', 'create', ACME, '--kind', 'publishable', '--name', 'lost'],
      full,
    );
    expect([r.code, r.stdout]).toEqual([1, '']);
    const key = /revoke it with: svc tenants api-keys revoke \S+ (key_\w+)/.exec(r.stderr)?.[1];
    expect(r.stderr).toMatch(
      new RegExp(
        made(`/v1/tenants/${ACME}/api-keys`, 201, 'key') +
          escaped(
            `its output was the only copy of API key ${key}, which is lost now; revoke it with: svc tenants api-keys revoke ${ACME} ${key} --yes, and create another with --secret-file PATH\n`,
          ) +
          '$',
      ),
    );
    const printed = /revoke it with: svc (.+?), and create/.exec(r.stderr)![1]!.split(' ');
    const revoked = await svc.run(printed);
    expect(revoked.code, revoked.stderr).toBe(0);
  });

  it('with --secret-file the output was not the only copy: the usual words', async () => {
    const id = await webhook();
    const file = join(tempDir('svc-lost-'), 'rotated.secret');
    const r = await svc.run(['webhooks', 'rotate-secret', id, '--secret-file', file], full);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/; its output was lost; check the result before running the command again\n$/);
  });
});
