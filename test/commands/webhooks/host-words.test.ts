/**
 * A webhook URL whose host is not ASCII (`exаmple.com`, its `а` Cyrillic: the look-alike of
 * `example.com`) in the words of `webhooks create` and `update` and in the webhook picker: shown
 * beside the punycode form deliveries go to (withAsciiHost, src/output/hosts.ts), as `webhooks
 * delete` and the redirect messages show it. They showed it raw (closing12-s20, left by fixers).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Prompter } from '../../../src/system/prompter.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const LOOK_ALIKE = 'https://ex\u0430mple.com/hook';
const SHOWN = `${LOOK_ALIKE} (host xn--exmple-4nf.com)`;
const PICKED = 'https://ex\u0430mple.com/picked';

const dir = useTempDir('svc-host-words-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A webhook whose URL the platform keeps as given, not in the punycode form the sandbox stores. */
async function lookAlikeWebhook(url = LOOK_ALIKE): Promise<string> {
  const { id } = await createWebhook(svc.sandbox(), 'https://example.com/hook');
  svc.sandbox().state.webhooks.byId(id)!.url = url;
  return id;
}

describe('a webhook URL whose host is not ASCII, in words', () => {
  it('webhooks update that changes nothing says where it points with the punycode host beside it', async () => {
    const id = await lookAlikeWebhook();
    const r = await svc.run(['webhooks', 'update', id, '--url', LOOK_ALIKE]);
    expect([r.code, r.stderr]).toEqual([0, `nothing changed: webhook ${id} already points at ${SHOWN}\n`]);
  });

  it('webhooks create refusing an empty --secret-file names the webhook it may have made, punycode beside', async () => {
    const path = join(dir, 'empty.secret');
    writeFileSync(path, '');
    const r = await svc.run([
      ...['webhooks', 'create', '--url', LOOK_ALIKE],
      ...['--event-type', 'webhook.test', '--secret-file', path],
    ]);
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([
      2,
      `error: --secret-file ${path} is empty: if an earlier svc run was stopped before its secret arrived, a webhook to ${SHOWN} may have been made; see it with: svc webhooks ls, and if nobody holds its secret, delete it with: svc webhooks delete WEBHOOK_ID --yes; then remove ${path}, or choose a new path`,
    ]);
  });

  it('the webhook picker of webhooks update shows the punycode host beside', async () => {
    const id = await lookAlikeWebhook(PICKED);
    const shown: string[] = [];
    const fail = async (): Promise<never> => {
      throw new Error('unexpected prompt');
    };
    const prompter: Prompter = {
      input: fail,
      password: fail,
      confirm: fail,
      select: async (_message, choices) => {
        shown.push(...choices.map((c) => c.name ?? ''));
        return choices.find((c) => c.value === id)!.value;
      },
    };
    await svc.run(['webhooks', 'update', '--description', 'look-alike'], {
      tty: { stdin: true, stdout: true },
      prompter,
    });
    expect(shown).toContain(`${id}  ${PICKED} (host xn--exmple-4nf.com)`);
  });
});
