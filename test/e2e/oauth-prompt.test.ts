import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { consentRobot, createClient } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { BIN, TEST_CACHE_DIR, tempConfigDir } from '../helpers/svc.js';

/**
 * The hidden prompt for a client secret, in a real terminal (tmux). Under CI=true a missing
 * tmux fails the test (.ci/run installs it).
 */
const run = promisify(execFile);
const hasTmux = ['/usr/bin/tmux', '/usr/local/bin/tmux', '/bin/tmux'].some((p) => existsSync(p));
const tmuxIt = hasTmux || process.env.CI === 'true' ? it : it.skip;
const socket = `svc-test-${process.pid}`;
const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
afterAll(async () => {
  await tmux('kill-server').catch(() => {});
});

const sandbox = useSandbox();
const dir = tempConfigDir();
const browser = consentRobot();

async function screen(): Promise<string> {
  return (await tmux('capture-pane', '-p', '-t', 'login', '-S', '-100')).stdout;
}

async function waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const text = await screen();
    if (pattern.test(text)) return text;
    if (Date.now() > until) throw new Error(`the terminal never showed ${pattern}:\n${text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

describe('svc oauth authorize on a terminal', () => {
  tmuxIt('asks for the client secret with a hidden prompt, and never shows it', async () => {
    const client = await createClient(sandbox());
    const env = {
      SVC_CONFIG_DIR: dir,
      SVC_BASE_URL: sandbox().url,
      SVC_BROWSER: browser,
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      SVC_CACHE_DIR: TEST_CACHE_DIR,
      NO_COLOR: '1',
    };
    const command = [
      'env',
      '-i',
      ...Object.entries(env).map(([k, v]) => quote(`${k}=${v}`)),
      quote(process.execPath),
      quote(BIN),
      'oauth',
      'authorize',
      '--client-id',
      client.client_id,
      '--scope',
      'read:exceptions',
      ';',
      'echo',
      'EXIT=$?;',
      'sleep',
      '60',
    ].join(' ');
    await tmux('new-session', '-d', '-s', 'login', '-x', '200', '-y', '50', command);
    await waitFor(/Client secret:/);
    await tmux('send-keys', '-t', 'login', '-l', client.client_secret);
    await tmux('send-keys', '-t', 'login', 'Enter');
    const text = await waitFor(/EXIT=\d+/);
    expect(text).toContain('EXIT=0');
    expect(text).toMatch(/Client secret: \*+/);
    expect(text).toMatch(/scope\s+read:exceptions/);
    expect(text).not.toContain(client.client_secret);
  });
});
