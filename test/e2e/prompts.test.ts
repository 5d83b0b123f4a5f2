/**
 * svc's prompts in a real terminal (tmux): a list to pick from, a justification with its rule,
 * a destructive action's confirmation. Spawned in tmux: keys typed on a terminal are the point.
 * Skipped with a note without tmux (CI=true requires it). That nothing prompts without a
 * terminal is tested in-process: test/commands/no-terminal-prompts.test.ts.
 */
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { shellQuote } from '../../src/system/shell-words.js';
import { runInProcess } from '../helpers/context.js';
import { needs } from '../helpers/needs.js';
import { useSandbox } from '../helpers/sandbox.js';
import { BIN, createCustomRole, customRoleExists, inProcessEnv } from '../helpers/svc.js';
import { tempDir } from '../helpers/temp.js';
import { Terminal } from '../helpers/terminal.js';

const sandbox = useSandbox();
let env: Record<string, string>;
let term: Terminal | undefined;

beforeAll(() => {
  env = {
    PATH: '/usr/bin:/bin',
    HOME: tempDir('svc-prompts-'),
    TERM: 'xterm',
    SVC_BASE_URL: sandbox().url,
    SVC_TOKEN: sandbox().adminToken,
  };
  env.SVC_CONFIG_DIR = join(env.HOME!, 'config');
});
afterEach(async () => {
  await term?.close();
  term = undefined;
});

needs('tmux').describe('prompts in a real terminal', () => {
  it('asks for the tenant, the kind and a justification when they are missing', async () => {
    term = await Terminal.svc(['tenants', 'api-keys', 'create', '--show-secret'], env);
    await term.waitFor(/Tenant[\s\S]*Acme Treasury \(acme-treasury\)/);
    await term.send('Down'); // Acme Payments EU
    await term.send('Enter');
    await term.waitFor(/Kind of key/);
    await term.send('Down'); // service_role
    await term.send('Enter');
    await term.waitFor(/Justification/);
    await term.type('short');
    await term.send('Enter');
    await term.waitFor(/at least 10 characters/);
    await term.type(' but now long enough');
    await term.send('Enter');
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/kind +service_role/);
    expect(screen).toMatch(/tenant +Acme Payments EU/);
    expect(screen).toMatch(/key +svc_sk_/);
    expect(screen).toContain('[exit 0]');
  });

  it("confirms a destructive action with the tenant's display name; no means nothing changes", async () => {
    // Made and looked for in-process: the prompt on the terminal is what is under test.
    const created = await runInProcess(
      [
        'records',
        'create',
        'exceptions',
        '--data',
        '{"text":"keep me"}',
        '--json',
        '--tenant',
        '8ab23c1d-a27b-565a-ad8f-983ecf5fe016',
      ],
      inProcessEnv(env),
    );
    const id = JSON.parse(created.stdout).id as string;
    term = await Terminal.svc(
      ['--tenant', '8ab23c1d-a27b-565a-ad8f-983ecf5fe016', 'records', 'delete', 'exceptions', id],
      env,
      // Wide enough for the whole question on one line (the prompt wraps it to the terminal).
      { columns: 160 },
    );
    await term.waitFor(
      new RegExp(
        `Delete exceptions record ${id} in Acme Treasury \\(acme-treasury\\)\\? It is purged for good after 30 days\\. \\(y/N\\)`,
      ),
    );
    await term.type('n');
    await term.send('Enter');
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('error: cancelled; nothing was changed');
    expect(screen).toContain('[exit 2]');
    const still = await runInProcess(
      ['records', 'ls', 'exceptions', '--json', '--tenant', '8ab23c1d-a27b-565a-ad8f-983ecf5fe016'],
      inProcessEnv(env),
    );
    expect(JSON.parse(still.stdout).map((r: { id: string }) => r.id)).toContain(id);
  });

  it('asks which webhook when it is missing', async () => {
    term = await Terminal.svc(
      ['--tenant', '8ab23c1d-a27b-565a-ad8f-983ecf5fe016', 'webhooks', 'deliveries', '--limit', '1'],
      env,
    );
    await term.waitFor(/Webhook[\s\S]*wh_\S+ +http/);
    await term.send('Enter');
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/\d+ deliver(y|ies): \d+ delivered, \d+ failed, \d+ in flight/);
    expect(screen).toContain('[exit 0]');
  });

  const acme = ['--tenant', '8ab23c1d-a27b-565a-ad8f-983ecf5fe016'];
  const customRole = (name: string) => createCustomRole(env, name);
  const roleExists = (name: string) => customRoleExists(env, name);

  it.each<[string, string[], RegExp]>([
    [
      'a confirmation',
      [...acme, 'roles', 'delete', 'ctrl_d_role'],
      /Delete the custom role ctrl_d_role[\s\S]*\(y\/N\)/,
    ],
    ['a confirmation, with --json', [...acme, 'roles', 'delete', 'ctrl_d_role', '--json'], /\(y\/N\)/],
    ['a picker', ['tenants', 'api-keys', 'ls'], /Tenant[\s\S]*Acme Treasury/],
  ])('Ctrl-D at %s ends the run with 130 (interrupted), nothing changed', async (_what, args, question) => {
    const deletes = args.includes('delete');
    if (deletes && !(await roleExists('ctrl_d_role'))) await customRole('ctrl_d_role');
    term = await Terminal.svc(args, env);
    await term.waitFor(question);
    await term.send('C-d');
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/cancelled at the prompt \(end of input\)/);
    expect(screen).toContain('[exit 130]');
    if (deletes) expect(await roleExists('ctrl_d_role')).toBe(true);
  });

  it('Ctrl-Z at a confirmation, then fg: the question is asked on and answered', async () => {
    await customRole('ctrl_z_role');
    const line = [process.execPath, BIN, ...acme, 'roles', 'delete', 'ctrl_z_role'].map(shellQuote).join(' ');
    // A shell with job control, as the user has: Ctrl-Z stops svc, fg brings it back.
    term = await Terminal.start('bash --norc --noprofile -i', { ...env, PS1: '$ ' });
    await term.waitFor(/^\$/m); // capture-pane drops the trailing space
    await term.type(line);
    await term.send('Enter');
    await term.waitFor(/Delete the custom role ctrl_z_role[\s\S]*\(y\/N\)/);
    await term.send('C-z');
    await term.waitFor(/Stopped/);
    await term.type('fg');
    await term.send('Enter');
    await term.waitFor(/\$ fg\n'/);
    // Back in the foreground, the prompt reads keys again: "y" deletes.
    await term.type('y');
    await term.send('Enter');
    await term.waitFor(/deleted role ctrl_z_role[\s\S]*\n\$/);
    // Asked once svc has ended (a list after it would run when svc is stopped, with 148).
    await term.type('echo "[exit $?]"');
    await term.send('Enter');
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 0]');
    expect(await roleExists('ctrl_z_role')).toBe(false);
  });
});
