// Just past 300 lines: svc plan over one sandbox, one behaviour per test with its exact output;
// the cases share their seeded tenants and the writes counter.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { parsePlan, runPlan } from '../../../src/commands/plan/index.js';
import { ChangesPendingError } from '../../../src/errors.js';
import { as, LABS, seedTenant, user, writeFile, writes } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// `svc plan` (issue 14): the exact difference per tenant in every output mode, exit 10 when
// changes are pending, and not one write to the platform.
const svc = useSandboxContext({ users: 10 }, { tenant: false });
const dir = useTempDir('svc-plan-');
let ids: { role: string; webhook: string; client: string };

const FILE = `version: 1
manage:
  roles: all
  grants: listed-roles
  webhooks: all
  oauth_clients: all
blocks:
  - tenants: acme-labs
    roles:
      - name: ops
        description: Operations team
        permissions: [exception.read, rule.read]
      - name: fx-desk
        permissions: [rule.write.fx]
    grants:
      - user: ${user(1)}
        role: ops
        expires_at: 2032-01-01T00:00:00Z
        justification: another year
      - users: [${user(2)}, ${user(3)}]
        role: fx-desk
        expires_at: 2031-06-30T00:00:00Z
        justification: FX rota
    webhooks:
      - url: https://hooks.example.com/labs
        event_types: [exception.created, exception.resolved]
        description: pager
`;

beforeAll(async () => {
  ids = await seedTenant(svc.sandbox(), LABS, 'labs');
});

const lines = (...rows: string[]) => `${rows.join('\n')}\n`;

describe('svc plan', () => {
  it.each([
    [
      'a terminal',
      { tty: { stdout: true }, columns: 120 },
      () =>
        lines(
          'Acme Labs (acme-labs)',
          `  ~ role ops (${ids.role})  (line 10)`,
          '      description: "Operations" → "Operations team"',
          '      permissions: + exception.read',
          '  + role fx-desk  (line 13)',
          '      permissions: rule.write.fx',
          `  ~ extend ops of ${user(1)}: 2031-01-01T00:00:00Z → 2032-01-01T00:00:00Z  (line 16)`,
          `  + grant fx-desk to ${user(2)}: until 2031-06-30T00:00:00Z  (line 20)`,
          `  + grant fx-desk to ${user(3)}: until 2031-06-30T00:00:00Z  (line 20)`,
          `  ~ webhook https://hooks.example.com/labs (${ids.webhook})  (line 25)`,
          '      event_types: + exception.resolved',
          `  - OAuth client portal (${ids.client})  — only with --prune`,
          '      scopes: read:reconciliations',
        ),
    ],
    [
      'a pipe',
      {},
      () =>
        lines(
          `acme-labs\trole\tupdate\tops\t${ids.role}\t10\tdescription: "Operations" → "Operations team"; permissions: + exception.read`,
          'acme-labs\trole\tcreate\tfx-desk\t\t13\tpermissions: rule.write.fx',
          `acme-labs\tgrant\textend\t${user(1)} ops\t\t16\t2031-01-01T00:00:00Z → 2032-01-01T00:00:00Z`,
          `acme-labs\tgrant\tgrant\t${user(2)} fx-desk\t\t20\tuntil 2031-06-30T00:00:00Z`,
          `acme-labs\tgrant\tgrant\t${user(3)} fx-desk\t\t20\tuntil 2031-06-30T00:00:00Z`,
          `acme-labs\twebhook\tupdate\thttps://hooks.example.com/labs\t${ids.webhook}\t25\tevent_types: + exception.resolved`,
          `acme-labs\toauth_client\tdelete\tportal\t${ids.client}\t\tscopes: read:reconciliations; only with --prune`,
        ),
    ],
  ])('prints the difference field by field on %s, and exits 10', async (_name, io, expected) => {
    const file = writeFile(dir, 'labs.yaml', FILE);
    const { ctx, stdout, stderr } = svc.context(io);
    const before = await writes(svc.sandbox());
    await expect(runPlan(ctx, parsePlan({ file }))).rejects.toThrow(ChangesPendingError);
    expect(stdout()).toBe(expected());
    expect(stderr()).toBe(
      'plan: 3 to create, 3 to update, 1 to delete (only with --prune) in 1 of 1 tenant\n',
    );
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('--json prints the plan document, and --out saves the same one', async () => {
    const file = writeFile(dir, 'labs.yaml', FILE);
    const out = join(dir, 'plan.json');
    const { ctx, stdout } = svc.context({ globals: { json: true } });
    await expect(runPlan(ctx, parsePlan({ file, out }))).rejects.toThrow(ChangesPendingError);
    const doc = JSON.parse(stdout());
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(doc);
    expect(doc).toMatchObject({
      svc_plan: 1,
      created_at: '2026-01-15T12:00:00Z',
      base_url: svc.sandbox().url,
      file: { path: file, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      manage: { roles: 'all', grants: 'listed-roles', webhooks: 'all', oauth_clients: 'all' },
      anchor: expect.any(String),
      summary: { tenants: 1, tenants_changed: 1, create: 3, update: 3, delete: 1, refused: 0 },
    });
    // Durations count from the platform's clock (the sandbox's is real time), not this machine's
    // (fixed in January): they differ by more than a minute.
    expect(Math.abs(Date.parse(doc.anchor) - Date.now())).toBeLessThan(60_000);
    const [tenant] = doc.tenants;
    expect(tenant).toMatchObject({
      id: LABS,
      slug: 'acme-labs',
      display_name: 'Acme Labs',
      scope: { roles: 'all', grants: ['fx-desk', 'ops'], webhooks: 'all', oauth_clients: 'all' },
    });
    // What the plan left alone: usr_admin's tenant_admin is not a listed role's grant, so it is not in scope.
    expect(tenant.unchanged.grant.count).toBe(0);
    expect(tenant.changes[2]).toEqual({
      kind: 'grant',
      action: 'update',
      verb: 'extend',
      name: `${user(1)} ops`,
      id: null,
      line: 16,
      prune: false,
      fields: [{ field: 'expires_at', from: '2031-01-01T00:00:00Z', to: '2032-01-01T00:00:00Z' }],
      before: expect.stringMatching(/^[0-9a-f]{16}$/),
      // Extended, it hands ops out as the file makes it: after ops's permissions change.
      needs: [`${LABS}/role/update/${ids.role}`],
      grant: {
        user: user(1),
        role: 'ops',
        role_id: ids.role,
        expires_at: '2032-01-01T00:00:00Z',
        justification: 'another year',
      },
    });
    expect(tenant.changes[3]).toMatchObject({
      verb: 'grant',
      grant: { user: user(2), role: 'fx-desk', role_id: null },
      needs: [`${LABS}/role/create/fx-desk`],
    });
    expect(tenant.changes[6]).toMatchObject({
      kind: 'oauth_client',
      action: 'delete',
      prune: true,
      id: ids.client,
      line: null,
    });
  });

  it('--ndjson prints one change per line, with its tenant', async () => {
    const file = writeFile(dir, 'labs.yaml', FILE);
    const { ctx, stdout } = svc.context({ globals: { ndjson: true } });
    await expect(runPlan(ctx, parsePlan({ file }))).rejects.toThrow(ChangesPendingError);
    const rows = stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(7);
    expect(rows.map((r) => `${r.slug} ${r.kind} ${r.verb} ${r.name}`)).toEqual([
      'acme-labs role update ops',
      'acme-labs role create fx-desk',
      `acme-labs grant extend ${user(1)} ops`,
      `acme-labs grant grant ${user(2)} fx-desk`,
      `acme-labs grant grant ${user(3)} fx-desk`,
      'acme-labs webhook update https://hooks.example.com/labs',
      'acme-labs oauth_client delete portal',
    ]);
    expect(rows[0].tenant).toBe(LABS);
  });

  it('exits 10 from the command line, and 0 with nothing to say when the state matches', async () => {
    const file = writeFile(dir, 'labs.yaml', FILE);
    const pending = await svc.run(['plan', '-f', file]);
    expect([pending.code, pending.stderr]).toEqual([
      10,
      'plan: 3 to create, 3 to update, 1 to delete (only with --prune) in 1 of 1 tenant\n',
    ]);
    const same = writeFile(
      dir,
      'same.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - name: ops\n        permissions: [rule.read]\n`,
    );
    expect(await svc.run(['plan', '-f', same])).toEqual({
      code: 0,
      stdout: '',
      stderr: `no changes: the live state of 1 tenant matches ${same}\n`,
    });
  });

  it('reports every problem of the file at once, reads nothing more, and changes nothing (exit 2)', async () => {
    const file = writeFile(
      dir,
      'bad.yaml',
      `version: 1
blocks:
  - tenants: [acme-labs, acme-tresury]
    roles:
      - name: ops2
        permissions: [rule.reed]
    grants:
      - user: usr_analyts
        role: tenant_analyst
      - user: ${user(4)}
        role: opz
    webhooks:
      - url: not a url
        event_types: [exception.created]
`,
    );
    const before = await writes(svc.sandbox());
    const { code, stdout, stderr } = await svc.run(['plan', '-f', file]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      lines(
        `${file}:3: tenant "acme-tresury" is not one of your tenants (did you mean acme-treasury?) (svc tenants ls lists them)`,
        `${file}:5: role "ops2": unknown permission rule.reed (did you mean rule.read?)`,
        `${file}:8: user "usr_analyts" is not a user of acme-labs`,
        `${file}:10: role "opz" does not exist in acme-labs (did you mean ops?)`,
        `${file}:13: "url" "not a url" is not a URL (e.g. https://hooks.example.com/svc)`,
        `error: 5 problems in ${file}; nothing was compared or changed; fix them and run the command again`,
      ),
    );
    expect(await writes(svc.sandbox())).toBe(before);
  });

  // attack18a F4: a grant with a malformed duration has its role and user checked in the same
  // run, not only once the duration is fixed.
  it('a grant whose duration is malformed: its unknown role and user are said in the same run', async () => {
    const file = writeFile(
      dir,
      'bad-duration.yaml',
      `version: 1
blocks:
  - tenants: acme-labs
    grants:
      - user: usr_analyts
        role: tenant_analist
        expires_in: 2w
`,
    );
    const { code, stderr } = await svc.run(['plan', '-f', file]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      lines(
        `${file}:5: role "tenant_analist" does not exist in acme-labs (did you mean tenant_analyst?)`,
        `${file}:5: user "usr_analyts" is not a user of acme-labs`,
        `${file}:7: "expires_in" "2w" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never`,
        `error: 3 problems in ${file}; nothing was compared or changed; fix them and run the command again`,
      ),
    );
  });

  it.each(['--json', '--ndjson'])(
    'with %s, stderr is one JSON error carrying every problem in details (no text lines)',
    async (flag) => {
      const file = writeFile(
        dir,
        'types.yaml',
        `version: "1"
blocks:
  - tenants: [acme-labs, 42]
    grants:
      - user: 123
        role: tenant_viewer
`,
      );
      const { code, stdout, stderr } = await svc.run(['plan', '-f', file, flag]);
      expect([code, stdout]).toEqual([2, '']);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      const { error } = JSON.parse(stderr);
      expect(error).toMatchObject({
        code: 'invalid_file',
        message: `3 problems in ${file}; nothing was compared or changed`,
        exit_code: 2,
      });
      expect(error.details).toEqual([
        { file, line: 1, message: expect.stringContaining('"version" must be 1') },
        { file, line: 3, message: expect.stringContaining('"tenants" must be') },
        { file, line: 5, message: '"user" must be text, not a whole number' },
      ]);
    },
  );

  it('needs -f, and says so', async () => {
    expect(await svc.run(['plan'])).toMatchObject({
      code: 2,
      stderr: 'error: svc plan needs -f FILE (an access file; svc export writes one)\n',
    });
  });

  it('makes grants extend or shorten as their expiry says, and needs a justification to change one', async () => {
    await as(svc.sandbox(), LABS, 'POST', `/v1/users/${user(5)}/roles`, { role_id: 'tenant_viewer' });
    const file = writeFile(
      dir,
      'expiry.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - user: ${user(5)}\n        role: tenant_viewer\n        expires_in: 7d\n`,
    );
    // This machine's clock agrees with the platform's (the sandbox runs on real time).
    const now = Math.floor(Date.now() / 1000) * 1000;
    const { code, stderr } = await svc.run(['plan', '-f', file], { now });
    expect(code).toBe(2);
    expect(stderr).toBe(
      lines(
        `${file}:5: the grant of tenant_viewer to ${user(5)} would be shortened (expires never → ${isoSeconds(now + 7 * 86_400_000)}), which needs a justification: add "justification:" to it`,
        `error: 1 problem in ${file}; nothing was changed; fix them and run the command again`,
      ),
    );
  });
});
