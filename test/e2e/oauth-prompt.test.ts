import { describe, expect, it } from 'vitest';
import { needs } from '../helpers/needs.js';
import { consentRobot, createClient } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { BIN, tempConfigDir } from '../helpers/svc.js';
import { Terminal } from '../helpers/terminal.js';

/**
 * The hidden prompt for a client secret, in a real terminal (tmux): spawned, because what the
 * prompt hides is what a real terminal shows. Skipped with a note without tmux; under CI=true a
 * missing tmux fails the test (.ci/run installs it).
 */
const sandbox = useSandbox();
const dir = tempConfigDir();
const browser = consentRobot();
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

describe('svc oauth authorize on a terminal', () => {
  needs('tmux').describe('the client secret prompt', () => {
    it('asks for the client secret with a hidden prompt, and never shows it', async () => {
      const client = await createClient(sandbox());
      const term = await Terminal.start(
        `${quote(process.execPath)} ${quote(BIN)} oauth authorize --client-id ${client.client_id} --scope read:exceptions; echo EXIT=$?; sleep 60`,
        {
          SVC_CONFIG_DIR: dir,
          SVC_BASE_URL: sandbox().url,
          SVC_BROWSER: browser,
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/tmp',
          NO_COLOR: '1',
        },
      );
      try {
        await term.waitFor(/Client secret:/, 20_000);
        await term.type(client.client_secret);
        await term.send('Enter');
        const text = await term.waitFor(/EXIT=\d+/, 20_000);
        expect(text).toContain('EXIT=0');
        expect(text).toMatch(/Client secret: \*+/);
        expect(text).toMatch(/scope\s+read:exceptions/);
        expect(text).not.toContain(client.client_secret);
      } finally {
        await term.close();
      }
    });
  });
});
