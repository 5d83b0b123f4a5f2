/**
 * A webhook's URL where it is only a label — a question, a ✓ line, a warning, an error — has its
 * secrets masked, as `svc apply` shows it (README, "Secrets are never in the file"; attack17 A3:
 * `webhooks delete` and `webhooks listen --webhook` printed a `?token=` whole into CI and screen
 * logs). The one line that must carry it, the command that puts W back if svc is killed, reads
 * it from a 0600 file under the state directory (attack25b M3).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Prompter } from '../../../src/system/prompter.js';
import { confirming } from '../../helpers/bulk.js';
import { startInProcess } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { admin, createWebhook, webhookNow } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const ignoring = useLossyProxy(svc.sandbox, { ignoreDeleteKeys: true });
const TOKEN_URL = 'https://relay3.example.com/in?token=tok_live_3333aaaa4444';
const MASKED = 'https://relay3.example.com/in?token=[redacted]';

const dir = useTempDir('svc-url-labels-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const listen = (args: string[]) =>
  startInProcess(['webhooks', 'listen', '--port', '0', ...args], svc.env(), { now: Date.now() });

describe('svc webhooks delete of a webhook whose URL carries a token', () => {
  it('masks it in the question and in the ✓ line', async () => {
    const { id } = await createWebhook(svc.sandbox(), TOKEN_URL);
    const prompter = confirming(false);
    const no = await svc.run(['webhooks', 'delete', id], { tty: { stdin: true, stdout: true }, prompter });
    expect(no.code).not.toBe(0);
    expect(prompter.asked).toEqual([
      `Delete webhook ${id} (${MASKED}) in Acme Treasury (acme-treasury)? It receives no more events; deliveries still waiting are cancelled.`,
    ]);
    const yes = await svc.run(['webhooks', 'delete', id, '--yes']);
    expect([yes.code, yes.stdout, yes.stderr]).toEqual([
      0,
      '',
      `✓ deleted webhook ${id} (${MASKED}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n`,
    ]);
  });

  it('masks it when the answer was lost and the retry found the webhook gone', async () => {
    const { id } = await createWebhook(svc.sandbox(), TOKEN_URL);
    ignoring().reset();
    const r = await svc.run(['webhooks', 'delete', id, '--yes'], { env: { SVC_BASE_URL: ignoring().url } });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      `✓ webhook ${id} (${MASKED}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 is gone: the platform's answer to the delete was lost (HTTP 503) and its retry found the webhook gone (HTTP 404 not_found); most likely this command deleted it\n`,
    ]);
  });
});

describe('svc webhooks listen --webhook W, W with a token in its URL', () => {
  // attack25b M3: the restore command printed the token whole, on every run, into every terminal
  // recording and CI log of a listen (and, run, into argv and the shell history).
  it('masks it in the start line and the "is back" line; the restore command reads it from a 0600 file, removed once W is back', async () => {
    const url = 'https://example.com/hooks/x?token=supersecrettoken123&sig=abcdefabcdef';
    const { id } = await createWebhook(svc.sandbox(), url);
    const a = listen(['--webhook', id]);
    await a.waitForStderr(/delivers here/);
    const file = new RegExp(`-F url=@(\\S+/listen/${id}-[0-9a-f]{8}\\.url) `).exec(a.stderr())?.[1];
    expect(file, a.stderr()).toBeDefined();
    expect(file!.startsWith(join(svc.env().SVC_STATE_DIR!, 'listen'))).toBe(true);
    expect(readFileSync(file!, 'utf8')).toBe(url);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file!)).mode & 0o777).toBe(0o700);
    a.interrupt();
    const done = await a.done;
    expect(done.code, done.stderr).toBe(0);
    const masked = 'https://example.com/hooks/x?token=[redacted]&sig=[redacted]';
    expect(done.stderr).toContain(
      `webhook ${id}'s URL is ${masked}; for this session svc rotates its secret (deliveries carry the old one too) and points it at the listener; ` +
        'Ctrl-C puts both back; if svc is killed instead, put them back with:\n' +
        `  svc api PATCH /v1/webhooks/${id} -F url=@${file} >/dev/null && svc api POST /v1/webhooks/${id}/restore-secret >/dev/null\n` +
        `  (the URL, which holds a secret, is read from ${file}, which only you can read, and not shown; svc removes that file once the webhook is back)\n`,
    );
    expect(done.stderr).toContain(
      `✓ webhook ${id} is back: ${masked}, signing with the secret it had before this session (the session's secret no longer works)\n`,
    );
    expect(done.stderr).not.toContain('supersecrettoken123');
    expect(existsSync(file!)).toBe(false);
    expect((await webhookNow(svc.sandbox(), id)).url).toBe(url);
  }, 30_000);

  // review25d L1: with a relative SVC_STATE_DIR the line named the file relative to where the
  // session ran; pasted elsewhere (after a kill, in another terminal) it could not read it.
  it('names the kept file by its absolute path when SVC_STATE_DIR is relative', async () => {
    const url = 'https://example.com/hooks/rel?token=relativesecret789';
    const { id } = await createWebhook(svc.sandbox(), url);
    const state = relative(process.cwd(), join(dir, 'state-relative'));
    expect(isAbsolute(state)).toBe(false);
    const a = startInProcess(
      ['webhooks', 'listen', '--port', '0', '--webhook', id],
      { ...svc.env(), SVC_STATE_DIR: state },
      { now: Date.now() },
    );
    await a.waitForStderr(/delivers here/);
    const file = join(dir, 'state-relative', 'listen');
    expect(a.stderr()).toMatch(new RegExp(`-F url=@${file}/${id}-[0-9a-f]{8}\\.url >/dev/null`));
    expect(a.stderr()).toMatch(new RegExp(`is read from ${file}/${id}-[0-9a-f]{8}\\.url, which only you`));
    a.interrupt();
    expect((await a.done).code).toBe(0);
  }, 30_000);

  // review25d L5: the kept file's removal came between the URL's put-back and restore-secret, and
  // a removal that threw (EACCES, EROFS) skipped the rotation's undoing.
  it('a kept file that cannot be removed at Ctrl-C is one warning; the secret is still restored', async () => {
    const url = 'https://example.com/hooks/stuck?token=stucksecret012345';
    const { id } = await createWebhook(svc.sandbox(), url);
    const before = await webhookNow(svc.sandbox(), id);
    const a = listen(['--webhook', id]);
    await a.waitForStderr(/delivers here/);
    const file = new RegExp(`-F url=@(\\S+/listen/${id}-[0-9a-f]{8}\\.url) `).exec(a.stderr())![1]!;
    // A directory in its place: rm without recursive fails whoever runs it (root too).
    rmSync(file);
    mkdirSync(join(file, 'in-the-way'), { recursive: true });
    a.interrupt();
    const done = await a.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(
      new RegExp(
        `warning: could not remove ${file}, which holds webhook ${id}'s URL \\(.+\\); it is no longer needed: rm ${file}\n`,
      ),
    );
    expect(done.stderr).toContain(`✓ webhook ${id} is back: `);
    const after = await webhookNow(svc.sandbox(), id);
    expect([after.url, after.secret_rotated_at]).toEqual([url, before.secret_rotated_at]);
  }, 30_000);

  it('a URL with a secret that cannot be kept (its place in the state directory a file) refuses the session: nothing changed, nothing printed whole', async () => {
    const url = 'https://example.com/hooks/y?token=keptsecrettoken456';
    const { id } = await createWebhook(svc.sandbox(), url);
    const before = await webhookNow(svc.sandbox(), id);
    // Its listen/ place taken by a file.
    const state = join(dir, 'state-listen-file');
    mkdirSync(state);
    writeFileSync(join(state, 'listen'), '');
    const r = await svc.run(['webhooks', 'listen', '--port', '0', '--webhook', id], {
      now: Date.now(),
      env: { SVC_STATE_DIR: state },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `error: cannot keep webhook ${id}'s URL \\(it holds a secret, which svc does not print\\) in .*: .*; nothing was changed; set SVC_STATE_DIR to a directory you can write\n$`,
      ),
    );
    expect(r.stderr).not.toContain('keptsecrettoken456');
    const after = await webhookNow(svc.sandbox(), id);
    expect([after.url, after.secret_rotated_at]).toEqual([url, before.secret_rotated_at]);
  }, 30_000);

  it('masks the URL someone else gave W while the session ran, and the listener URL of a session that holds W', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/c');
    const a = listen(['--webhook', id, '--public-url', 'https://tunnel.example/in?token=TUNNELTOKEN1234']);
    await a.waitForStderr(/delivers here/);
    const during = (await webhookNow(svc.sandbox(), id)).url;
    expect(during).toMatch(/^https:\/\/tunnel\.example\/in\?token=TUNNELTOKEN1234&svc-listen=[0-9a-f]{12}$/);
    const session = during.slice(during.indexOf('&svc-listen='));
    const b = await svc.run(['webhooks', 'listen', '--webhook', id, '--port', '0'], { now: Date.now() });
    expect(b.code, b.stderr).toBe(6);
    expect(b.stderr).toContain(
      `error: webhook ${id} is already taken over by another \`svc webhooks listen\` session (its URL is https://tunnel.example/in?token=[redacted]${session}); `,
    );
    expect(b.stderr).not.toContain('TUNNELTOKEN1234');

    await admin(svc.sandbox(), 'PATCH', `/v1/webhooks/${id}`, {
      url: 'https://elsewhere.example/x?token=NEWTOKEN77777777',
    });
    a.interrupt();
    const done = await a.done;
    expect(done.code, done.stderr).toBe(6);
    expect(done.stderr).toContain(
      `error: webhook ${id} was changed by someone else while this session ran (its URL is now https://elsewhere.example/x?token=[redacted]); `,
    );
    expect(done.stderr).toContain(
      `to put it back as it was before this session: svc api PATCH /v1/webhooks/${id} -f url=https://hooks.example/c && `,
    );
    expect(done.stderr).not.toContain('NEWTOKEN77777777');
    expect(done.stderr).not.toContain('TUNNELTOKEN1234');
  }, 30_000);
});

describe('other lines that name a webhook by its URL', () => {
  it('webhooks update that changes nothing says where it points, masked', async () => {
    const { id } = await createWebhook(svc.sandbox(), TOKEN_URL);
    const r = await svc.run(['webhooks', 'update', id, '--url', TOKEN_URL]);
    // The webhook as it is follows on stdout, URL whole (webhooks get's view); the line is a label.
    expect([r.code, r.stderr]).toEqual([0, `nothing changed: webhook ${id} already points at ${MASKED}\n`]);
    expect(r.stdout).toContain(`url\t${TOKEN_URL}\n`);
  });

  it('webhooks create refusing an empty --secret-file names the webhook it may have made, masked', async () => {
    const path = join(dir, 'empty.secret');
    writeFileSync(path, '');
    const r = await svc.run([
      'webhooks',
      'create',
      '--url',
      TOKEN_URL,
      '--event-type',
      'webhook.test',
      '--secret-file',
      path,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: --secret-file ${path} is empty: if an earlier svc run was stopped before its secret arrived, a webhook to ${MASKED} may have been made`,
    );
    expect(r.stderr).not.toContain('tok_live_3333aaaa4444');
  });

  it('the webhook picker shows each URL masked', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://picker.example.com/in?token=PICKTOKEN123456');
    const shown: string[] = [];
    const fail = async (): Promise<never> => {
      throw new Error('unexpected prompt');
    };
    const prompter: Prompter = {
      input: fail,
      password: fail,
      confirm: async () => false,
      select: async (_message, choices) => {
        shown.push(...choices.map((c) => c.name ?? ''));
        return choices.find((c) => c.value === id)!.value;
      },
    };
    await svc.run(['webhooks', 'delete'], { tty: { stdin: true, stdout: true }, prompter });
    expect(shown).toContain(`${id}  https://picker.example.com/in?token=[redacted]`);
    expect(shown.join('\n')).not.toContain('PICKTOKEN123456');
  });

  // review18 R18-6: two webhooks told apart only by their token showed as identical lines.
  it('the webhook picker tells apart webhooks whose masked URLs are the same, by creation and description', async () => {
    const url = (t: string) => `https://relay-pick.example.com/in?token=tok_${t}`;
    const one = await createWebhook(svc.sandbox(), url('aaaa1111bbbb2222'), { description: 'payments team' });
    const two = await createWebhook(svc.sandbox(), url('cccc3333dddd4444'), {
      event_types: ['webhook.test'],
    });
    const alone = await createWebhook(svc.sandbox(), 'https://alone-pick.example.com/in?token=tok_eeee5555');
    const shown: string[] = [];
    const prompter: Prompter = {
      input: async () => {
        throw new Error('unexpected prompt');
      },
      password: async () => {
        throw new Error('unexpected prompt');
      },
      confirm: async () => false,
      select: async (_message, choices) => {
        shown.push(...choices.map((c) => c.name ?? ''));
        return choices.find((c) => c.value === one.id)!.value;
      },
    };
    await svc.run(['webhooks', 'delete'], { tty: { stdin: true, stdout: true }, prompter });
    const line = (id: string) => shown.find((l) => l.startsWith(id))!;
    const created = async (id: string) => (await webhookNow(svc.sandbox(), id)).created_at;
    const masked = 'https://relay-pick.example.com/in?token=[redacted]';
    expect(line(one.id)).toBe(
      `${one.id}  ${masked}  (created ${await created(one.id)}, exception.sla.breached, webhook.test, "payments team")`,
    );
    expect(line(two.id)).toBe(`${two.id}  ${masked}  (created ${await created(two.id)}, webhook.test)`);
    // A URL no other webhook shows is left as it was.
    expect(line(alone.id)).toBe(`${alone.id}  https://alone-pick.example.com/in?token=[redacted]`);
    expect(shown.join('\n')).not.toMatch(/tok_/);
  });

  it('plan names two live webhooks of one URL, masked', async () => {
    const url = 'https://twice.example.com/in?token=TWICETOKEN123456';
    const one = (await createWebhook(svc.sandbox(), url)).id;
    const two = (await createWebhook(svc.sandbox(), url)).id;
    const file = join(dir, 'twice.yaml');
    writeFileSync(
      file,
      `version: 1\nblocks:\n  - tenants: acme-treasury\n    webhooks:\n      - url: "${url}"\n        event_types: [webhook.test]\n`,
    );
    const r = await svc.run(['plan', '-f', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `:5: 2 live webhooks are https://twice\\.example\\.com/in\\?token=\\[redacted\\] \\((${one}, ${two}|${two}, ${one})\\): `,
      ),
    );
    expect(r.stderr).not.toContain('TWICETOKEN123456');
  });

  it('apply of a saved plan names a webhook made since the plan, masked', async () => {
    const url = 'https://drift.example.com/in?token=DRIFTTOKEN123456';
    const file = join(dir, 'drift.yaml');
    writeFileSync(
      file,
      `version: 1\nblocks:\n  - tenants: acme-treasury\n    webhooks:\n      - url: "${url}"\n        event_types: [webhook.test]\n`,
    );
    const plan = join(dir, 'drift.plan.json');
    const planned = await svc.run(['plan', '-f', file, '--out', plan], { now: Date.now() });
    expect(planned.code, planned.stderr).toBe(10);
    await createWebhook(svc.sandbox(), url);
    const r = await svc.run(['apply', plan, '--yes', '--secret-dir', join(dir, 's')], { now: Date.now() });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'acme-treasury: webhook https://drift.example.com/in?token=[redacted] was created since the plan',
    );
    expect(r.stderr).not.toContain('DRIFTTOKEN123456');
  });
});
