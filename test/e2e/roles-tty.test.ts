import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { needs } from '../helpers/needs.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { BIN, TEST_CACHE_DIR, tempConfigDir } from '../helpers/svc.js';

// A real terminal: svc runs inside tmux, keys are typed with send-keys and the screen is read
// with capture-pane. Without tmux these tests are skipped with a note; under CI=true a missing
// tmux fails them (test/helpers/needs.ts).
const sandbox = useSandbox({ users: 1500 });
const configDir = tempConfigDir();
const TENANT = tenantId('acme-treasury');
const sessions: string[] = [];
let env: Record<string, string>;

beforeAll(() => {
  env = {
    SVC_CONFIG_DIR: configDir,
    SVC_BASE_URL: sandbox().url,
    SVC_TOKEN: sandbox().adminToken,
    SVC_TENANT: TENANT,
    NO_COLOR: '1',
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    LANG: 'C.UTF-8',
    SVC_CACHE_DIR: TEST_CACHE_DIR,
  };
});
afterAll(() => {
  for (const name of sessions) {
    try {
      execFileSync('tmux', ['kill-session', '-t', name], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
});

const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });

/** Starts `svc ARGS` in a detached tmux session; the pane stays open after it exits. */
function terminal(
  args: string[],
  options: { stdout?: string } = {},
): {
  keys: (...keys: string[]) => void;
  screen: () => string;
  until: (text: string | RegExp) => Promise<string>;
} {
  const name = `svc-roles-${process.pid}-${sessions.length}`;
  sessions.push(name);
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '160',
    '-y',
    '50',
    ...envArgs,
    `${quoted}${options.stdout ? ` > '${options.stdout}'` : ''}; echo "[exit $?]"; sleep 600`,
  );
  const screen = () => tmux('capture-pane', '-p', '-t', name);
  return {
    keys: (...keys) => {
      tmux('send-keys', '-t', name, ...keys);
    },
    screen,
    until: async (text) => {
      for (let i = 0; i < 200; i++) {
        const shown = screen();
        if (typeof text === 'string' ? shown.includes(text) : text.test(shown)) return shown;
        await sleep(50);
      }
      throw new Error(`timed out waiting for ${text}; the screen shows:\n${screen()}`);
    },
  };
}

needs('tmux').describe('svc roles on a terminal', () => {
  it('assign asks for user, role, expiry and justification, then grants', async () => {
    const t = terminal(['roles', 'assign']);
    await t.until('User id');
    t.keys('usr_compliance', 'Enter');
    await t.until('Role');
    // Least privileged first, so Enter alone never grants tenant_admin: tenant_viewer is the fourth.
    await t.until(/❯ tenant_ai_prompter/);
    for (let i = 0; i < 3; i++) t.keys('Down');
    await t.until(/❯ tenant_viewer/);
    t.keys('Enter');
    await t.until('Expires in (30m, 8h, 7d, or never)');
    t.keys('2x', 'Enter');
    await t.until('"2x" is not a duration');
    t.keys('BSpace', 'BSpace', '2h', 'Enter');
    await t.until('Justification');
    t.keys('Enter');
    await t.until('say why the role is granted');
    t.keys('quarterly review', 'Enter');
    const shown = await t.until('[exit 0]');
    expect(shown).toMatch(
      /✓ granted tenant_viewer to usr_compliance until \S+Z \(audit trail aud_[0-9a-f]{24}\)/,
    );
    expect(shown).toMatch(/audit trail id +aud_[0-9a-f]{24}/);
    const held = await call(sandbox(), 'GET', '/v1/users/usr_compliance/roles', {
      token: sandbox().adminToken,
      tenant: TENANT,
    });
    const granted = held.body.items.find((a: { role_id: string }) => a.role_id === 'tenant_viewer');
    expect(granted).toMatchObject({ justification: 'quarterly review', status: 'active' });
    const hours = (Date.parse(granted.expires_at) - Date.parse(granted.assigned_at)) / 3600_000;
    expect(hours).toBeCloseTo(2, 1);
  });

  it('revoke asks for confirmation, and nothing changes when the answer is no', async () => {
    await call(sandbox(), 'POST', '/v1/users/usr_lead/roles', {
      token: sandbox().adminToken,
      tenant: TENANT,
      body: { role_id: 'tenant_reviewer', idempotency_key: 'tty-revoke' },
    });
    const no = terminal(['roles', 'revoke', 'usr_lead', 'tenant_reviewer']);
    await no.until('Revoke tenant_reviewer from usr_lead in Acme Treasury (acme-treasury)?');
    no.keys('n', 'Enter');
    const refused = await no.until('[exit 2]');
    expect(refused).toContain('error: cancelled; nothing was changed');
    const yes = terminal(['roles', 'revoke', 'usr_lead', 'tenant_reviewer']);
    await yes.until('(y/N)');
    yes.keys('y', 'Enter');
    const done = await yes.until('[exit 0]');
    expect(done).toMatch(/✓ revoked tenant_reviewer from usr_lead \(audit trail aud_[0-9a-f]{24}\)/);
    const held = await call(sandbox(), 'GET', '/v1/users/usr_lead/roles', {
      token: sandbox().adminToken,
      tenant: TENANT,
    });
    expect(held.body.items.map((a: { role_id: string }) => a.role_id)).toEqual(['tenant_lead']);
  });

  it('a bulk run draws a progress bar on the terminal, then prints its summary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-roles-tty-'));
    // Enough rows for the bar to be seen mid-run (the screen is read every 50 ms).
    const rows = Array.from(
      { length: 1500 },
      (_, i) => `usr_bulk_${String(i + 1).padStart(6, '0')},tenant_viewer,1h,tty`,
    );
    const csv = join(dir, 'grants.csv');
    writeFileSync(csv, `user,role,expires_in,justification\n${rows.join('\n')}\n`);
    // Results go to a file (tab-separated); the terminal shows stderr: the bar, redrawn in place.
    const t = terminal(['roles', 'assign', '--file', csv, '--journal', join(dir, 'journal.ndjson')], {
      stdout: join(dir, 'out.tsv'),
    });
    const drawing = await t.until(/granting \[[#.]{24}\] [\d,]+\/1,500 \d+% · [\d,]+\/s/);
    expect(drawing).toMatch(/granting \[/);
    const done = await t.until('[exit 0]');
    expect(done).toMatch(/^✓ 1,500 granted in \d+\.\d s$/m);
    expect(done).not.toContain('granting [');
  });
});
