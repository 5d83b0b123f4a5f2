/**
 * The commands `svc webhooks listen --webhook W` prints for putting W back by hand are pasted into
 * a shell: every value in them is one shell word, so a URL holding `$(…)`, `$VAR` or backquotes
 * (WHATWG URLs keep them in the path; any tenant admin can set one) runs nothing and W gets its
 * exact URL back. Checked by pasting the printed line into a real bash, zsh and fish (fish reads
 * `\\` and `\'` inside single quotes as escapes: a URL holding backslashes comes back exact too).
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { restoreCommands } from '../../../src/commands/webhooks/by-hand.js';
import { runProcess } from '../../../src/system/run.js';
import { startInProcess } from '../../helpers/context.js';
import { needs } from '../../helpers/needs.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { BIN, baseEnv } from '../../helpers/svc.js';
import { useTempDir } from '../../helpers/temp.js';
import { admin, createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const tmp = useTempDir('svc-listen-paste-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Shell = 'bash' | 'zsh' | 'fish';

/** Runs `line` in `shell` as pasted, with `svc` the built binary against the sandbox. */
async function paste(shell: Shell, line: string) {
  const define =
    shell === 'fish'
      ? `function svc; "${process.execPath}" "${BIN}" $argv; end`
      : `svc() { "${process.execPath}" "${BIN}" "$@"; }`;
  return runProcess(shell, ['-c', `${define}\n${line}\n`], { env: baseEnv(svc.env()), timeoutMs: 30_000 });
}

describe('listen --webhook: the printed restore commands are safe to paste', () => {
  it('quotes each value as one shell word (single quotes: nothing expands)', () => {
    const target = { profile: 'default', profileSource: 'default' as const, values: {}, sources: {} };
    expect(restoreCommands(target, 'wh_1', 'https://h.example/a')).toBe(
      'svc api PATCH /v1/webhooks/wh_1 -f url=https://h.example/a && svc api POST /v1/webhooks/wh_1/restore-secret',
    );
    expect(restoreCommands(target, 'wh_1', "https://h.example/$(x)'`y`$HOME", false)).toBe(
      "svc api PATCH /v1/webhooks/wh_1 -f url='https://h.example/$(x)'\\''`y`$HOME'",
    );
  });
});

describe.each(['bash', 'zsh', 'fish'] as const)(
  'listen --webhook: the restore line pasted into %s',
  (shell) => {
    needs(shell).describe(shell, () => {
      it('a URL holding $(…), $VAR, backquotes and backslashes: pasting the printed line runs nothing and puts the exact URL back', async () => {
        const pwned = join(tmp, `pwned-${shell}`);
        const url = `http://127.0.0.1:9/b$(touch$IFS${pwned})$HOME\`touch$IFS${pwned}2\`?q='a'&r=$PATH&s=a\\b\\'c\\`;
        const { id } = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/x');
        const set = await admin(svc.sandbox(), 'PATCH', `/v1/webhooks/${id}`, { url });
        expect(set.status, set.text).toBe(200);
        const original = set.body.url as string;
        expect(original).toContain('\\');

        const a = startInProcess(['webhooks', 'listen', '--port', '0', '--webhook', id], svc.env(), {
          now: Date.now(),
        });
        await a.waitForStderr(/delivers here/);
        const printed = /^ {2}(svc api PATCH .+)$/m.exec(a.stderr())?.[1];
        expect(printed).toBeDefined();
        // Another session's URL stands in for "svc was killed": W is still redirected when pasted.
        const pasted = await paste(shell, printed!);
        expect([pasted.code, pasted.stderr]).toEqual([0, '']);
        expect(existsSync(pwned)).toBe(false);
        expect(existsSync(`${pwned}2`)).toBe(false);
        expect((await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).body.url).toBe(original);
        a.interrupt();
        await a.done;
      }, 60_000);

      // attack25b M3: a URL holding a secret is read from the 0600 file svc kept it in, never printed.
      it('a URL holding a secret: the printed line reads it from its file, and pasting it puts the exact URL back', async () => {
        const url = `http://127.0.0.1:9/in?access_key=Zq8HxkVwP3m9TtLr2bQa&shell=${shell}`;
        const { id } = await createWebhook(svc.sandbox(), url);
        const a = startInProcess(['webhooks', 'listen', '--port', '0', '--webhook', id], svc.env(), {
          now: Date.now(),
        });
        await a.waitForStderr(/delivers here/);
        expect(a.stderr()).not.toContain('Zq8HxkVwP3m9TtLr2bQa');
        const printed = /^ {2}(svc api PATCH .+)$/m.exec(a.stderr())?.[1];
        expect(printed).toMatch(/ -F url=@\S+\.url >\/dev\/null && svc api POST \S+ >\/dev\/null$/);
        // Pasted while W is still the session's: it stands in for "svc was killed".
        const pasted = await paste(shell, printed!);
        expect([pasted.code, pasted.stdout, pasted.stderr]).toEqual([0, '', '']);
        expect((await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).body.url).toBe(url);
        a.interrupt();
        await a.done;
      }, 60_000);
    });
  },
);
