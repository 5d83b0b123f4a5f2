import { describe, expect, it } from 'vitest';
import { parseOAuthDelete, runOAuthDelete } from '../../../src/commands/oauth/delete.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// oauth ls | get | update | delete (issue 13), and create's required --scope.
const svc = useSandboxContext();
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';

async function created(name = 'Vendor portal'): Promise<{ client_id: string; client_secret: string }> {
  const r = await svc.run([
    'oauth',
    'create',
    '--name',
    name,
    '--redirect-uri',
    'https://vendor.example/cb',
    '--scope',
    'read:exceptions',
    '--show-secret',
    '--json',
  ]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('svc oauth ls / get', () => {
  it('lists and shows clients, never a secret', async () => {
    const client = await created('Listed');
    const ls = await svc.run(['oauth', 'ls']);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(
      new RegExp(
        `^${client.client_id}\\tListed\\tread:exceptions\\thttps://vendor\\.example/cb\\tyes\\t${TIME}\\t$`,
        'm',
      ),
    );
    const json = JSON.parse((await svc.run(['oauth', 'ls', '--json'])).stdout);
    expect(json.map((c: { client_id: string }) => c.client_id)).toContain(client.client_id);
    const get = await svc.run(['oauth', 'get', client.client_id]);
    expect(get.stdout).toMatch(
      new RegExp(
        `^client id\\t${client.client_id}\\nname\\tListed\\ndescription\\t\\nredirect uris\\thttps://vendor\\.example/cb\\n` +
          'grant types\\tauthorization_code,refresh_token\\nscopes\\tread:exceptions\\ntoken lifetime\\t3600 s\\n' +
          `refresh lifetime\\t2592000 s\\npkce required\\tyes\\ncreated\\t${TIME}\\nsecret rotated\\t\\n$`,
      ),
    );
    expect(ls.stdout + get.stdout).not.toContain(client.client_secret);
    const missing = await svc.run(['oauth', 'get', 'cli_missing']);
    expect(missing.code).toBe(5);
  });
});

describe('svc oauth update', () => {
  it('changes the registration; repeated flags replace the list', async () => {
    const client = await created();
    const r = await svc.run([
      'oauth',
      'update',
      client.client_id,
      '--scope',
      'read:reconciliations',
      '--scope',
      'read:exceptions',
      '--token-lifetime',
      '600',
      '--no-pkce',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('scopes\tread:reconciliations,read:exceptions\ntoken lifetime\t600 s\n');
    expect(r.stdout).toContain('pkce required\tno\n');
    expect(r.stderr).toBe(
      `✓ updated OAuth client ${client.client_id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (scopes, token_lifetime_seconds, pkce_required)\n`,
    );
  });

  // examples16 E5: the help's example read as "add a redirect URI"; the URIs it removed went
  // without a word. The ✓ line names what a replaced list lost.
  it('--redirect-uri replaces the list, and the ✓ line names the redirect URIs it removed', async () => {
    const client = await created();
    const first = await svc.run([
      ...['oauth', 'update', client.client_id],
      ...['--redirect-uri', 'http://127.0.0.1/callback', '--redirect-uri', 'http://127.0.0.1:8765/callback'],
    ]);
    expect([first.code, first.stderr]).toEqual([
      0,
      `✓ updated OAuth client ${client.client_id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (redirect_uris); removed the redirect URI https://vendor.example/cb\n`,
    ]);
    const r = await svc.run([
      ...['oauth', 'update', client.client_id, '--redirect-uri', 'https://vendor.example/v2/callback'],
      ...['--scope', 'read:reconciliations'],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('redirect uris\thttps://vendor.example/v2/callback\n');
    expect(r.stderr).toBe(
      `✓ updated OAuth client ${client.client_id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (redirect_uris, scopes); removed the redirect URIs ` +
        'http://127.0.0.1/callback, http://127.0.0.1:8765/callback and the scope read:exceptions\n',
    );
  });

  it.each([
    [
      [],
      'error: nothing to change: give --name, --description, --redirect-uri, --grant-type, --scope, a lifetime, --pkce or --no-pkce\n',
    ],
    [
      ['--redirect-uri', '/cb'],
      'error: --redirect-uri "/cb" is not an absolute http(s) URI; for example https://app.example.com/oauth/callback, or http://127.0.0.1/callback for a native app\n',
    ],
  ])('%j is a usage error', async (flags, stderr) => {
    const r = await svc.run(['oauth', 'update', 'cli_x', ...flags]);
    expect([r.code, r.stderr]).toEqual([2, stderr]);
  });

  it('reports the server’s check of the client as changed (exit 2)', async () => {
    const client = await created();
    const r = await svc.run([
      'oauth',
      'update',
      client.client_id,
      '--redirect-uri',
      'http://vendor.example/cb',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --redirect-uri "http:\/\/vendor\.example\/cb" may use http only on a loopback host/,
    );
  });
});

describe('svc oauth delete', () => {
  it('asks naming the client and the tenant; --yes deletes it', async () => {
    const client = await created('Doomed');
    const { ctx, questions } = svc.context({ tty: true, answers: [false] });
    await expect(runOAuthDelete(ctx, parseOAuthDelete(client.client_id))).rejects.toThrow('cancelled');
    expect(questions).toEqual([
      `Delete OAuth client Doomed (${client.client_id}) in Acme Treasury (acme-treasury)? Its secret and every token issued to it stop working at once.`,
    ]);
    const noYes = await svc.run(['oauth', 'delete', client.client_id]);
    expect([noYes.code, noYes.stderr]).toEqual([
      2,
      `error: deleting OAuth client ${client.client_id} needs confirmation; pass --yes to confirm non-interactively\n`,
    ]);
    const r = await svc.run(['oauth', 'delete', client.client_id, '--yes']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      `✓ deleted OAuth client Doomed (${client.client_id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016; its tokens no longer work\n`,
    ]);
    expect((await svc.run(['oauth', 'get', client.client_id])).code).toBe(5);
  });
});

describe('svc oauth create', () => {
  it('needs --scope, and says so before anything is sent (help says it is required)', async () => {
    const r = await svc.run(['oauth', 'create', '--name', 'x', '--redirect-uri', 'https://x.example/cb']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: --scope is required: the scopes the client may ask for (repeat it for several); e.g. --scope read:reconciliations --scope read:exceptions\n',
    ]);
    const help = await svc.run(['oauth', 'create', '--help']);
    expect(help.stdout).toMatch(/--scope <scope> +a scope the client may ask for \(required,\s+repeatable\)/);
  });
});

// s11 review-b 2: the platform's first-party client (svc-cli) is read in every tenant, and a change
// of it is refused as the platform's own, with the fix: never "not found" for the client a login uses.
describe('the first-party client svc-cli', () => {
  it('svc oauth get shows it', async () => {
    const r = await svc.run(['oauth', 'get', 'svc-cli', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ client_id: 'svc-cli', tenant_id: null });
  });

  it.each([
    ['update', ['oauth', 'update', 'svc-cli', '--name', 'mine']],
    ['delete', ['oauth', 'delete', 'svc-cli', '--yes']],
    ['rotate-secret', ['oauth', 'rotate-secret', 'svc-cli', '--yes', '--show-secret']],
  ])('svc oauth %s refuses it in one line with the fix (exit 4)', async (_verb, argv) => {
    const r = await svc.run(argv);
    expect([r.code, r.stdout]).toEqual([4, '']);
    expect(r.stderr).toMatch(
      /^error: OAuth client svc-cli is the platform's first-party client: it is no tenant's to change, rotate or delete \(HTTP 403, oauth_client_first_party, request req_[0-9a-f]+\); it needs no change to log in with; for a client of your own, create one with `svc oauth create`\n$/,
    );
  });
});
