import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { needs } from '../helpers/needs.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { tempConfigDir } from '../helpers/svc.js';
import { useTempDir } from '../helpers/temp.js';
import { Terminal } from '../helpers/terminal.js';

// A real terminal: svc runs inside tmux (a private server, test/helpers/terminal.ts), keys are
// typed with send-keys and the screen is read with capture-pane. Without tmux these tests are
// skipped with a note; under CI=true a missing tmux fails them (test/helpers/needs.ts).
const sandbox = useSandbox({ users: 160 });
const configDir = tempConfigDir();
const TENANT = tenantId('acme-treasury');
const dir = useTempDir('svc-roles-tty-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const opened: Terminal[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()));
});
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
  };
});

/** `svc ARGS` in a 160×50 terminal, closed after the test. */
async function terminal(args: string[], options: { stdout?: string } = {}): Promise<Terminal> {
  const term = await Terminal.svc(args, env, { columns: 160, rows: 50, ...options });
  opened.push(term);
  return term;
}

needs('tmux').describe('svc roles on a terminal', () => {
  it('assign asks for user, role, expiry and justification, then grants', async () => {
    const t = await terminal(['roles', 'assign']);
    await t.waitFor('User id');
    await t.send('usr_compliance', 'Enter');
    await t.waitFor('Role');
    // Least privileged first, so Enter alone never grants tenant_admin: tenant_viewer is the fourth.
    await t.waitFor(/❯ tenant_ai_prompter/);
    for (let i = 0; i < 3; i++) await t.send('Down');
    await t.waitFor(/❯ tenant_viewer/);
    await t.send('Enter');
    await t.waitFor('Expires in (30m, 8h, 7d, or never)');
    await t.send('2x', 'Enter');
    await t.waitFor('"2x" is not a duration');
    await t.send('BSpace', 'BSpace', '2h', 'Enter');
    await t.waitFor('Justification');
    await t.send('Enter');
    await t.waitFor('say why the role is granted');
    await t.send('quarterly review', 'Enter');
    const shown = await t.waitFor('[exit 0]');
    expect(shown).toMatch(
      /✓ granted tenant_viewer to usr_compliance in Acme Treasury \(acme-treasury\) until \S+Z \(audit trail aud_[0-9a-f]{24}\)/,
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
    const no = await terminal(['roles', 'revoke', 'usr_lead', 'tenant_reviewer']);
    await no.waitFor('Revoke tenant_reviewer from usr_lead in Acme Treasury (acme-treasury)?');
    await no.send('n', 'Enter');
    const refused = await no.waitFor('[exit 2]');
    expect(refused).toContain('error: cancelled; nothing was changed');
    const yes = await terminal(['roles', 'revoke', 'usr_lead', 'tenant_reviewer']);
    await yes.waitFor('(y/N)');
    await yes.send('y', 'Enter');
    const done = await yes.waitFor('[exit 0]');
    expect(done).toMatch(
      /✓ revoked tenant_reviewer from usr_lead in Acme Treasury \(acme-treasury\) \(audit trail aud_[0-9a-f]{24}\)/,
    );
    const held = await call(sandbox(), 'GET', '/v1/users/usr_lead/roles', {
      token: sandbox().adminToken,
      tenant: TENANT,
    });
    expect(held.body.items.map((a: { role_id: string }) => a.role_id)).toEqual(['tenant_lead']);
  });

  it('a bulk run draws a progress bar on the terminal, then prints its summary', async () => {
    // The bar must be on screen until it is seen (the screen is read every 50 ms): one grant is
    // held in the sandbox until then, so the run cannot end first however slow the screen reads
    // are (it used to rely on 50 ms of latency a row; the bar's text is checked byte for byte in
    // test/unit/output-render.test.ts).
    const rows = Array.from(
      { length: 160 },
      (_, i) => `usr_bulk_${String(i + 1).padStart(6, '0')},tenant_viewer,1h,tty`,
    );
    const csv = join(dir, 'grants.csv');
    writeFileSync(csv, `user,role,expires_in,justification\n${rows.join('\n')}\n`);
    const held = sandbox().faults.hold(
      (method, url) => method === 'POST' && /^\/v1\/users\/[^/]+\/roles$/.test(url),
    );
    try {
      // Results go to a file (tab-separated); the terminal shows stderr: the bar, redrawn in place.
      const t = await terminal(['roles', 'assign', '--file', csv, '--journal', join(dir, 'journal.ndjson')], {
        stdout: join(dir, 'out.tsv'),
      });
      await held.arrived;
      const drawing = await t.waitFor(/granting \[[#.]{24}\] \d+\/160 \d+% · [\d,]+\/s/);
      expect(drawing).toMatch(/granting \[/);
      held.release();
      const done = await t.waitFor('[exit 0]');
      expect(done).toMatch(/^✓ 160 granted in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)$/m);
      expect(done).not.toContain('granting [');
    } finally {
      held.release();
    }
  });
});
