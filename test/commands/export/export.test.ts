import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { isoSeconds } from '../../../src/api/time.js';
import { parseExport, runExport } from '../../../src/commands/export/index.js';
import { APAC, as, LABS, seedTenant, user, writeFile } from '../../helpers/ascode.js';
import { sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// `svc export` (issue 14): the live state as an access file, which `svc plan` finds unchanged —
// for every kind of resource — and in which an edit shows as exactly that change.
const svc = useSandboxContext({ users: 10 }, { tenant: false });
const dir = useTempDir('svc-export-');
let apac: { role: string; webhook: string; client: string };

beforeAll(async () => {
  apac = await seedTenant(svc.sandbox(), APAC, 'apac');
  for (const n of [2, 3]) {
    await as(svc.sandbox(), APAC, 'POST', `/v1/users/${user(n)}/roles`, {
      role_id: apac.role,
      expires_at: '2031-01-01T00:00:00Z',
      justification: 'on call',
    });
  }
  await seedTenant(svc.sandbox(), LABS, 'labs');
});

const YAML = (at: string) => `# svc export of Acme APAC (acme-apac) at ${at}
# svc plan -f FILE shows how the live state differs from this file; svc apply -f FILE makes it match.
version: 1
manage:
  roles: all
  grants: all
  webhooks: all
  oauth_clients: all
blocks:
  - tenants: acme-apac  # Acme APAC
    roles:
      - name: ops
        description: Operations
        permissions: [rule.read]
    grants:
      - role: ops
        users: [${user(1)}, ${user(2)}, ${user(3)}]
        expires_at: "2031-01-01T00:00:00Z"
        justification: on call
      - role: tenant_admin
        user: usr_admin
    webhooks:
      - url: "https://hooks.example.com/apac"
        event_types: [exception.created]
        description: pager
        status: enabled
        max_attempts: 5
    oauth_clients:
      - name: portal
        description: ""
        redirect_uris: ["https://portal.example.com/cb"]
        grant_types: [authorization_code, refresh_token]
        scopes: ["read:reconciliations"]
        token_lifetime_seconds: 3600
        refresh_token_lifetime_seconds: 2592000
        pkce_required: true
`;

describe('svc export', () => {
  it('writes a tenant as YAML: grants alike as one entry, no ids where names are enough, no secrets', async () => {
    // This machine's clock as the platform's (an export's time is the platform's: test/commands/export/clock.test.ts).
    const now = await sandboxNow(svc.sandbox());
    const { ctx, stdout, stderr } = svc.context({ globals: { tenants: ['acme-apac'] }, now });
    await runExport(ctx, parseExport({}, ctx.globals));
    expect(stdout()).toBe(YAML(isoSeconds(now)));
    expect(stderr()).toBe('exported 1 custom role, 4 grants, 1 webhook, 1 OAuth client of 1 tenant\n');
    expect(stdout()).not.toMatch(/secret|whsec_|svc_cs_/);
  });

  it('writes the same document as JSON with --json, or to a .json file', async () => {
    const { ctx, stdout } = svc.context({ globals: { tenants: ['acme-apac'], json: true } });
    await runExport(ctx, parseExport({}, ctx.globals));
    const doc = parseYaml(YAML(''));
    expect(JSON.parse(stdout())).toEqual(doc);
    const output = join(dir, 'apac.json');
    const file = svc.context({ globals: { tenants: ['acme-apac'] } });
    await runExport(file.ctx, parseExport({ output }, file.ctx.globals));
    expect(JSON.parse(readFileSync(output, 'utf8'))).toEqual(doc);
    expect(file.stderr()).toBe(
      `✓ exported 1 custom role, 4 grants, 1 webhook, 1 OAuth client of 1 tenant to ${output}\n`,
    );
  });

  it('exports several tenants (--tenant, repeated) and then plans no changes', async () => {
    const output = join(dir, 'two.yaml');
    const exported = await svc.run(['export', '--tenant', 'acme-apac', '--tenant', LABS, '-o', output]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(parseYaml(readFileSync(output, 'utf8')).blocks.map((b: { tenants: string }) => b.tenants)).toEqual(
      ['acme-apac', 'acme-labs'],
    );
    expect(await svc.run(['plan', '-f', output])).toEqual({
      code: 0,
      stdout: '',
      stderr: `no changes: the live state of 2 tenants matches ${output}\n`,
    });
  });

  it('--all-tenants: every tenant where you are tenant_admin', async () => {
    const output = join(dir, 'all.yaml');
    expect((await svc.run(['export', '--all-tenants', '-o', output])).code).toBe(0);
    expect(parseYaml(readFileSync(output, 'utf8')).blocks.map((b: { tenants: string }) => b.tenants)).toEqual(
      ['acme-treasury', 'acme-payments-eu', 'acme-ledger-uk', 'acme-apac', 'acme-labs'],
    );
    expect((await svc.run(['plan', '-f', output])).code).toBe(0);
  });

  it('refuses a tenant that is not yours, with a suggestion', async () => {
    expect(await svc.run(['export', '--tenant', 'acme-apak'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: tenant "acme-apak" is not one of your tenants (did you mean acme-apac?); svc tenants ls lists them\n',
    });
    expect((await svc.run(['export', '--tenant', 'acme-apac', '--all-tenants'])).code).toBe(2);
  });

  // Each kind round-trips, and an edit of it shows as that change alone.
  it.each([
    ['custom roles', (d: any) => d.blocks[0].roles[0].permissions.push('exception.read'), 'role update ops'],
    [
      'grants (an entry of three users alike: three grants)',
      (d: any) => (d.blocks[0].grants[0].expires_at = '2032-01-01T00:00:00Z'),
      [1, 2, 3].map((n) => `grant extend ${user(n)} ops`).join(),
    ],
    [
      'webhooks',
      (d: any) => (d.blocks[0].webhooks[0].description = 'pager 2'),
      'webhook update https://hooks.example.com/apac',
    ],
    [
      'OAuth clients',
      (d: any) => (d.blocks[0].oauth_clients[0].token_lifetime_seconds = 600),
      'oauth_client update portal',
    ],
  ])('%s: export → plan shows no changes; an edit shows exactly that change', async (_kind, edit, change) => {
    const { ctx, stdout } = svc.context({ globals: { tenants: ['acme-apac'], json: true } });
    await runExport(ctx, parseExport({}, ctx.globals));
    const exported = writeFile(dir, 'round.json', stdout());
    expect((await svc.run(['plan', '-f', exported])).code).toBe(0);
    const doc = JSON.parse(stdout());
    edit(doc);
    const edited = writeFile(dir, 'edited.json', JSON.stringify(doc, null, 2));
    const planned = await svc.run(['plan', '-f', edited, '--ndjson']);
    expect(planned.code).toBe(10);
    const rows = planned.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => `${r.kind} ${r.verb} ${r.name}`).join()).toEqual(change);
  });

  it('writes ids where the natural identity is ambiguous (two webhooks with one URL), and still plans no changes', async () => {
    await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/labs',
      event_types: ['exception.resolved'],
    });
    const { ctx, stdout } = svc.context({ globals: { tenants: ['acme-labs'], json: true } });
    await runExport(ctx, parseExport({}, ctx.globals));
    const hooks = JSON.parse(stdout()).blocks[0].webhooks;
    expect(hooks.map((h: { id?: string }) => typeof h.id)).toEqual(['string', 'string']);
    const file = writeFile(dir, 'dup.json', stdout());
    expect((await svc.run(['plan', '-f', file])).code).toBe(0);
    // An entry without an id cannot say which of the two it is: svc says so, and compares nothing.
    const doc = JSON.parse(stdout());
    doc.blocks[0].webhooks = [doc.blocks[0].webhooks[0]];
    delete doc.blocks[0].webhooks[0].id;
    const ambiguous = writeFile(dir, 'ambiguous.json', JSON.stringify(doc, null, 2));
    const planned = await svc.run(['plan', '-f', ambiguous]);
    expect(planned.code).toBe(2);
    expect(planned.stderr).toContain('2 live webhooks are https://hooks.example.com/labs');
  });
});
