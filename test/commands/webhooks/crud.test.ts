import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../../src/sandbox/delivery/events.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { admin } from '../../helpers/webhooks.js';

// webhooks get|create|update|delete|rotate-secret (issue 13): every webhook operation a verb;
// signing secrets go to a new 0600 file or are printed only when asked, and are never lost.
const svc = useSandboxContext();
const dir = useTempDir('svc-webhooks-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
const now = { now: Date.now() };

async function webhookCount(): Promise<number> {
  return (await admin(svc.sandbox(), 'GET', '/v1/webhooks?limit=200')).body.items.length;
}

describe('svc webhooks get', () => {
  it.each([
    ['plain', []],
    ['json', ['--json']],
  ])('%s: one webhook, never its secret', async (mode, flags) => {
    const r = await svc.run(['webhooks', 'get', SEEDED_WEBHOOKS.exceptions, ...flags]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    if (mode === 'json') {
      expect(JSON.parse(r.stdout)).toMatchObject({ id: SEEDED_WEBHOOKS.exceptions, max_attempts: 5 });
    } else {
      expect(r.stdout).toMatch(
        new RegExp(
          `^id\\t${SEEDED_WEBHOOKS.exceptions}\\nurl\\thttp://127\\.0\\.0\\.1:9/svc/exceptions\\ndescription\\tExceptions to the on-call bridge\\n` +
            `event types\\texception\\.sla\\.breached, exception\\.created, exception\\.assigned\\nstatus\\tenabled\\nmax attempts\\t5\\n` +
            `created\\t${TIME}\\nupdated\\t${TIME}\\nsecret rotated\\t\\nprevious secret until\\t\\nprevious secrets\\t\\n` +
            'owner\\tusr_admin\\ndisabled because\\t\\nsecret at risk\\t\\n$',
        ),
      );
    }
    expect(r.stdout).not.toContain('whsec_');
  });

  it('names an unknown webhook (exit 5)', async () => {
    const r = await svc.run(['webhooks', 'get', 'wh_nope']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^error: webhook wh_nope not found \(HTTP 404/);
  });
});

describe('svc webhooks create', () => {
  it('writes the secret to a new 0600 file and prints only where it went', async () => {
    const file = join(dir, 'a');
    const r = await svc.run([
      'webhooks',
      'create',
      '--url',
      'https://hooks.example.com/svc',
      '--event-type',
      'exception.sla.breached,exception.created',
      '--description',
      'ops',
      '--secret-file',
      file,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const secret = readFileSync(file, 'utf8');
    // Exactly the key's bytes, no final newline: receivers read the file as it is (sig13 finding 8).
    expect(secret).toMatch(/^whsec_[\w-]{43}$/);
    const payload = join(dir, 'a.json');
    writeFileSync(payload, '{"id":"evt_1"}');
    const signed = await svc.run([
      'webhooks',
      'sign',
      '--secret-file',
      file,
      '--payload',
      payload,
      '--at',
      String(Math.floor(Date.now() / 1000)),
    ]);
    expect(() =>
      Stripe.webhooks.constructEvent(readFileSync(payload), signed.stdout.trim(), readFileSync(file, 'utf8')),
    ).not.toThrow();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(r.stdout).toContain(`signing secret\twritten to ${file} (mode 0600)\n`);
    expect(r.stdout + r.stderr).not.toContain(secret.trim());
    expect(r.stderr).toMatch(
      new RegExp(
        `^✓ created webhook wh_\\w+ in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016; its signing secret is in ${file} \\(mode 0600\\), not shown again\\ntry it: svc webhooks test wh_\\w+\\n$`,
      ),
    );
    const id = /^id\t(wh_\w+)$/m.exec(r.stdout)![1]!;
    const made = (await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).body;
    expect(made).toMatchObject({ url: 'https://hooks.example.com/svc', description: 'ops' });
    expect(made.event_types).toEqual(['exception.sla.breached', 'exception.created']);
    const secrets = await call(svc.sandbox(), 'GET', `/_sandbox/webhooks/${id}/secret`);
    expect(secrets.body.secret).toBe(secret.trim());
  });

  it('--show-secret: a ✓ line names the webhook made and its tenant, then the warning (attack26a F9)', async () => {
    const r = await svc.run([
      'webhooks',
      'create',
      '--url',
      'https://h.example/shown',
      '--event-type',
      'webhook.test',
      '--show-secret',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const id = /^id\t(wh_\w+)$/m.exec(r.stdout)![1]!;
    expect(r.stderr).toBe(
      `✓ created webhook ${id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\nwarning: store the signing secret now: it is not shown again (rotate it to get a new one)\n` +
        `try it: svc webhooks test ${id}\n`,
    );
  });

  it('--json with --secret-file carries secret_file, not the secret; --show-secret --json carries it', async () => {
    const file = join(dir, 'b');
    const withFile = await svc.run([
      'webhooks',
      'create',
      '--url',
      'https://h.example/',
      '--event-type',
      'webhook.test',
      '--secret-file',
      file,
      '--json',
    ]);
    const body = JSON.parse(withFile.stdout);
    expect(body.secret_file).toBe(file);
    expect(body.secret).toBeUndefined();
    const shown = await svc.run([
      'webhooks',
      'create',
      '--url',
      'https://h.example/',
      '--event-type',
      'webhook.test',
      '--show-secret',
      '--json',
    ]);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      secret: expect.stringMatching(/^whsec_/),
      warning: expect.any(String),
    });
  });

  it.each([
    [
      ['--url', 'https://h.example/', '--event-type', 'webhook.test'],
      'error: svc webhooks create returns the signing secret once: pass --secret-file PATH (or --show-secret to print it)',
    ],
    [
      ['--url', 'https://h.example/', '--event-type', 'webhook.test', '--show-secret', '--secret-file', 'x'],
      'error: use --secret-file or --show-secret, not both',
    ],
    [['--event-type', 'webhook.test', '--show-secret'], 'error: --url is required'],
    [
      ['--url', 'ftp://h.example/', '--event-type', 'webhook.test', '--show-secret'],
      'error: --url "ftp://h.example/" is not an absolute http(s) URL',
    ],
    [
      ['--url', 'ftp://admin:S3cret@h.example/', '--event-type', 'webhook.test', '--show-secret'],
      'error: --url "ftp://[redacted]:[redacted]@h.example/" is not an absolute http(s) URL',
    ],
    [['--url', 'https://h.example/', '--show-secret'], 'error: --event-type is required'],
    [
      ['--url', 'https://h.example/', '--event-type', 'Bad Kind', '--show-secret'],
      'error: --event-type "Bad Kind" is not an event kind',
    ],
  ])('%j: a usage error (exit 2) before anything is sent', async (flags, message) => {
    const before = await webhookCount();
    const r = await svc.run(['webhooks', 'create', ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(message), r.stderr).toBe(true);
    expect(await webhookCount()).toBe(before);
  });

  it('never overwrites a file, and creates nothing when it cannot write the secret', async () => {
    const file = join(dir, 'exists');
    writeFileSync(file, 'precious\n');
    const before = await webhookCount();
    const r = await svc.run([
      'webhooks',
      'create',
      '--url',
      'https://h.example/',
      '--event-type',
      'webhook.test',
      '--secret-file',
      file,
    ]);
    expect([r.code, r.stderr]).toEqual([
      2,
      `error: --secret-file ${file} already exists; svc never overwrites a secret file; choose a new path; keep the old file until the new secret is in use (it may hold the one in force now)\n`,
    ]);
    expect(readFileSync(file, 'utf8')).toBe('precious\n');
    expect(await webhookCount()).toBe(before);
  });

  it('refuses an event kind the platform does not deliver, with the server’s reason (exit 2)', async () => {
    const r = await svc.run([
      'webhooks',
      'create',
      '--url',
      'https://h.example/',
      '--event-type',
      'made.up',
      '--show-secret',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --event-type "made\.up" must be equal to one of the allowed values/);
  });
});

describe('svc webhooks update, rotate-secret, delete', () => {
  it('updates, rotates (both secrets sign for a while) and deletes a webhook', async () => {
    const created = JSON.parse(
      (
        await svc.run([
          'webhooks',
          'create',
          '--url',
          'https://h.example/a',
          '--event-type',
          'webhook.test',
          '--show-secret',
          '--json',
        ])
      ).stdout,
    );
    const updated = await svc.run([
      'webhooks',
      'update',
      created.id,
      '--url',
      'https://h.example/b',
      '--disable',
      '--max-attempts',
      '3',
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/\nurl\thttps:\/\/h\.example\/b\n/);
    expect(updated.stdout).toMatch(/\nstatus\tdisabled\nmax attempts\t3\n/);
    expect(updated.stderr).toBe(
      `✓ updated webhook ${created.id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (url, max_attempts, status)\n`,
    );

    const file = join(dir, 'c');
    const rotated = await svc.run(['webhooks', 'rotate-secret', created.id, '--secret-file', file], now);
    expect(rotated.code, rotated.stderr).toBe(0);
    const secret = readFileSync(file, 'utf8').trim();
    expect(secret).not.toBe(created.secret);
    expect(rotated.stderr).toMatch(
      /deliveries carry a signature with the previous secret too until \S+: switch the receiver before then\n$/,
    );

    const refused = await svc.run(['webhooks', 'delete', created.id]);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      `error: deleting webhook ${created.id} needs confirmation; pass --yes to confirm non-interactively\n`,
    ]);
    const deleted = await svc.run(['webhooks', 'delete', created.id, '--yes']);
    expect([deleted.code, deleted.stdout, deleted.stderr]).toEqual([
      0,
      '',
      `✓ deleted webhook ${created.id} (https://h.example/b) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n`,
    ]);
    expect((await svc.run(['webhooks', 'get', created.id])).code).toBe(5);
  });

  it('asks on a terminal, naming the webhook and the tenant; no means nothing changes', async () => {
    const created = JSON.parse(
      (
        await svc.run([
          'webhooks',
          'create',
          '--url',
          'https://h.example/x',
          '--event-type',
          'webhook.test',
          '--show-secret',
          '--json',
        ])
      ).stdout,
    );
    const { ctx, stderr, questions } = svc.context({ tty: true, answers: [false] });
    const { parseWebhooksDelete, runWebhooksDelete } = await import(
      '../../../src/commands/webhooks/delete.js'
    );
    await expect(
      runWebhooksDelete(ctx, parseWebhooksDelete(created.id) as { webhook: string }),
    ).rejects.toThrow('cancelled; nothing was changed');
    expect(questions).toEqual([
      `Delete webhook ${created.id} (https://h.example/x) in Acme Treasury (acme-treasury)? It receives no more events; deliveries still waiting are cancelled.`,
    ]);
    expect(stderr()).toBe('');
    expect((await admin(svc.sandbox(), 'GET', `/v1/webhooks/${created.id}`)).status).toBe(200);
  });

  it.each([
    [
      ['webhooks', 'update', 'wh_x'],
      2,
      'error: nothing to change: give --url, --event-type, --description, --max-attempts, --enable or --disable\n',
    ],
    [
      ['webhooks', 'update', 'wh_x', '--enable', '--disable'],
      2,
      'error: use --enable or --disable, not both\n',
    ],
    [
      ['webhooks', 'rotate-secret', SEEDED_WEBHOOKS.warehouse],
      2,
      'error: svc webhooks rotate-secret returns the signing secret once: pass --secret-file PATH (or --show-secret to print it); the secret is shown only in this answer; without it, deliveries cannot be verified\n',
    ],
  ])('%j exits %i', async (argv, code, stderr) => {
    const r = await svc.run(argv);
    expect([r.code, r.stdout, r.stderr]).toEqual([code, '', stderr]);
  });
});
