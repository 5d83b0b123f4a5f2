import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as, LABS, writeFile } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// What svc plan and svc apply show of an access file is what they send (review s13, ascode
// F12, F5): bidi overrides are made visible by the one terminal sanitizer, on a terminal and in
// TSV; a webhook URL's secret query parameter is masked where the URL is a label (rows, the
// tree, the --debug trace), and kept whole in the --json plan document svc apply reads.
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = useTempDir('svc-plan-shown-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BIDI = `version: 1
blocks:
  - tenants: acme-labs
    roles:
      - name: ctl-role
        description: "evil\\u202Etxt.exe \\u001b[2Jcleared"
        permissions: [exception.read]
    oauth_clients:
      - name: "payroll\\u202Elanretxe"
        redirect_uris: [https://bidi.example.com/cb]
        scopes: [read:tenants]
`;

describe('svc plan shows bidi overrides visibly', () => {
  it('in TSV', async () => {
    const file = writeFile(dir, 'bidi.yaml', BIDI);
    const r = await svc.run(['plan', '-f', file]);
    expect(r.code, r.stderr).toBe(10);
    expect(r.stdout).not.toMatch(/[\u202a-\u202e]/);
    expect(r.stdout.split('\n').filter((l) => l.includes('oauth_client') || l.includes('ctl-role'))).toEqual([
      'acme-labs\trole\tcreate\tctl-role\t\t5\tdescription: "evil\\u202etxt.exe \\u001b[2Jcleared"; permissions: exception.read',
      'acme-labs\toauth_client\tcreate\tpayroll\\u202elanretxe\t\t9\tredirect_uris: https://bidi.example.com/cb; scopes: read:tenants',
    ]);
  });

  it('on a terminal, as svc apply shows the same plan before its question', async () => {
    const file = writeFile(dir, 'bidi-tty.yaml', BIDI);
    const r = await svc.run(['plan', '-f', file], { tty: true });
    expect(r.code, r.stderr).toBe(10);
    expect(r.stdout).not.toMatch(/[\u202a-\u202e\u001b]/);
    expect(r.stdout).toContain('      description: "evil\\u202etxt.exe \\u001b[2Jcleared"\n');
    expect(r.stdout).toContain('+ OAuth client payroll\\u202elanretxe');
  });
});

describe("a webhook URL's token", () => {
  const URL_WITH_TOKEN = 'https://hooks.example.com/in?token=s3cr3tTokenValue123456&x=1';
  const MASKED = 'https://hooks.example.com/in?token=[redacted]&x=1';

  it('is masked in plan and apply rows and the --debug trace, kept in the --json plan', async () => {
    const made = await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', {
      url: URL_WITH_TOKEN,
      event_types: ['exception.created'],
    });
    const file = writeFile(
      dir,
      'tok.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    webhooks:\n      - id: ${made.id}\n        url: "${URL_WITH_TOKEN}"\n        event_types: [exception.created, exception.resolved]\n`,
    );
    const plan = await svc.run(['plan', '-f', file, '--debug']);
    expect(plan.code, plan.stderr).toBe(10);
    expect(plan.stdout).toBe(
      `acme-labs\twebhook\tupdate\t${MASKED}\t${made.id}\t5\tevent_types: + exception.resolved\n`,
    );
    expect(plan.stderr).not.toContain('s3cr3t');
    expect(plan.stderr).toContain(`"url":"${MASKED}"`);

    const tree = await svc.run(['plan', '-f', file], { tty: true });
    expect(tree.stdout).not.toContain('s3cr3t');
    expect(tree.stdout).toContain(`~ webhook ${MASKED} (${made.id})`);

    const json = await svc.run(['plan', '-f', file, '--json']);
    expect(JSON.parse(json.stdout).tenants[0].changes[0].name).toBe(URL_WITH_TOKEN);

    const applied = await svc.run(['apply', '-f', file, '--yes', '--journal', join(dir, 'j-tok')]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toBe(`5\tacme-labs\twebhook\tupdate\t${MASKED}\tok\t${made.id}\t\n`);
    expect(applied.stderr).not.toContain('s3cr3t');
  });
});

// review16e E4: `/hooks/v2` was masked as a key, so a change of the URL to `/hooks/v9` read as
// deleting and re-creating the same `…/hooks/[redacted]`.
describe('a webhook URL with a version after /hooks/', () => {
  it('is shown whole, so a change of its URL reads as one', async () => {
    const made = await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', {
      url: 'https://ci.example.com/hooks/v2',
      event_types: ['exception.created'],
    });
    try {
      const file = writeFile(
        dir,
        'v9.yaml',
        'version: 1\nmanage:\n  webhooks: all\nblocks:\n  - tenants: acme-labs\n    webhooks:\n      - url: "https://ci.example.com/hooks/v9"\n        event_types: [exception.created]\n',
      );
      const plan = await svc.run(['plan', '-f', file]);
      expect(plan.code, plan.stderr).toBe(10);
      const rows = plan.stdout.split('\n').filter((l) => l.includes('ci.example.com'));
      expect(rows.map((r) => r.split('\t').slice(2, 5))).toEqual([
        ['create', 'https://ci.example.com/hooks/v9', ''],
        ['delete', 'https://ci.example.com/hooks/v2', made.id],
      ]);
    } finally {
      await as(svc.sandbox(), LABS, 'DELETE', `/v1/webhooks/${made.id}`);
    }
  });
});
