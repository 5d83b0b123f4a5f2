/**
 * svc's prompts in a real terminal (tmux): a list to pick from, a justification with its rule,
 * a destructive action's confirmation. Spawned in tmux: keys typed on a terminal are the point.
 * Skipped with a note without tmux (CI=true requires it). That nothing prompts without a
 * terminal is tested in-process: test/commands/no-terminal-prompts.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { needs } from '../helpers/needs.js';
import { useSandbox } from '../helpers/sandbox.js';
import { svc } from '../helpers/svc.js';
import { Terminal } from '../helpers/terminal.js';

const sandbox = useSandbox();
let env: Record<string, string>;
let term: Terminal | undefined;

beforeAll(() => {
  env = {
    PATH: '/usr/bin:/bin',
    HOME: mkdtempSync(join(tmpdir(), 'svc-prompts-')),
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
    term = await Terminal.svc(['tenants', 'api-keys', 'create'], env);
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
    const created = await svc(
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
      { env },
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
    const still = await svc(
      ['records', 'ls', 'exceptions', '--json', '--tenant', '8ab23c1d-a27b-565a-ad8f-983ecf5fe016'],
      { env },
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
});
