import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_PATHS } from '../../../src/api/constants.js';
import type { Sandbox } from '../../../src/sandbox/server.js';
import { as, LABS, losingAnswersOnConfirm, writeFile } from '../../helpers/ascode.js';
import { call, useSandbox, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// An export of a tenant whose webhooks share a URL and whose OAuth clients share a name (exploratory
// test s6, L8) restored on another platform: its ids are not there, so the file asks for them to be
// created (--create-missing); each is created exactly once — also after a run that lost its answers —
// both secrets are written, and the same file then plans no changes.
const svc = useSandboxContext({}, { tenant: false });
const second = useSandbox();
const third = useSandbox();
const dir = useTempDir('svc-restore-');
const URL_ = 'https://hooks.example.com/shared';
const CLIENT = {
  name: 'portal',
  redirect_uris: ['https://portal.example.com/cb'],
  scopes: ['read:reconciliations'],
};
let exported: string;

beforeAll(async () => {
  const source = svc.sandbox();
  await as(source, LABS, 'POST', '/v1/webhooks', { url: URL_, event_types: ['exception.created'] });
  await as(source, LABS, 'POST', '/v1/webhooks', {
    url: URL_,
    event_types: ['exception.resolved'],
    description: 'second',
  });
  // Two clients alike in everything but their id.
  await as(source, LABS, 'POST', '/v1/oauth/clients', CLIENT);
  await as(source, LABS, 'POST', '/v1/oauth/clients', CLIENT);
  exported = join(dir, 'labs.yaml');
  const run = await svc.run(['export', '--tenant', 'acme-labs', '-o', exported]);
  expect(run.code, run.stderr).toBe(0);
});

const at = (sandbox: Sandbox) => ({
  env: { SVC_BASE_URL: sandbox.url, SVC_TOKEN: sandbox.adminToken },
  clock: { now: () => Date.now() },
});

async function webhooks(sandbox: Sandbox) {
  const r = await call(sandbox, 'GET', '/v1/webhooks?limit=100', { token: sandbox.adminToken, tenant: LABS });
  return (r.body.items as Array<{ id: string; url: string; event_types: string[]; description?: string }>)
    .filter((w) => w.url === URL_)
    .map((w) => ({ id: w.id, events: w.event_types.join(), description: w.description ?? '' }))
    .sort((a, b) => a.events.localeCompare(b.events));
}

async function clients(sandbox: Sandbox) {
  const r = await call(sandbox, 'GET', '/v1/oauth/clients', {
    token: sandbox.adminToken,
    tenant: LABS,
  });
  return (r.body.items as Array<{ client_id: string; name: string }>).filter((c) => c.name === 'portal');
}

/** The platform accepts the client's secret (client authentication at the revocation endpoint). */
async function clientSecretWorks(sandbox: Sandbox, clientId: string, secret: string): Promise<boolean> {
  const response = await fetch(`${sandbox.url}${OAUTH_PATHS.revoke}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, client_secret: secret, token: 'none' }).toString(),
  });
  return response.status === 200;
}

/** Two webhooks of the URL and two clients of the name, each with its secret in its own file. */
async function expectRestored(sandbox: Sandbox, secrets: string) {
  const hooks = await webhooks(sandbox);
  expect(hooks.map(({ events, description }) => ({ events, description }))).toEqual([
    { events: 'exception.created', description: '' },
    { events: 'exception.resolved', description: 'second' },
  ]);
  const made = await clients(sandbox);
  expect(made).toHaveLength(2);
  const files = readdirSync(secrets);
  expect(files).toHaveLength(4);
  for (const hook of hooks) {
    const file = files.find((f) => f.includes(hook.id));
    expect(file, hook.id).toBeDefined();
    const secret = (await call(sandbox, 'GET', `/_sandbox/webhooks/${hook.id}/secret`)).body.secret;
    expect(readFileSync(join(secrets, file!), 'utf8')).toBe(secret);
  }
  for (const client of made) {
    const file = files.find((f) => f.includes(client.client_id));
    expect(file, client.client_id).toBeDefined();
    const secret = readFileSync(join(secrets, file!), 'utf8').trim();
    expect(await clientSecretWorks(sandbox, client.client_id, secret)).toBe(true);
  }
}

describe('restoring an export whose webhooks share a URL and whose clients share a name', () => {
  it('the export names them by id; elsewhere the ids are missing, and svc says how to create them', async () => {
    const text = readFileSync(exported, 'utf8');
    expect(text.match(/^ {6}- id: wh_/gm)).toHaveLength(2);
    expect(text.match(/^ {6}- client_id: /gm)).toHaveLength(2);
    expect(text).toContain(
      '# Ids tell webhooks of one URL (clients of one name) apart; elsewhere, --create-missing creates them.\n',
    );
    const plan = await svc.run(['plan', '-f', exported], at(second()));
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stderr).toMatch(
      /does not exist in acme-labs.*--create-missing creates it \(restoring an export elsewhere\)/,
    );
  });

  it('plan --create-missing shows two creations of each; the saved plan applied makes exactly those; then no changes', async () => {
    const sandbox = second();
    const planFile = join(dir, 'restore-plan.json');
    const planned = await svc.run(
      ['plan', '-f', exported, '--create-missing', '--out', planFile, '--ndjson'],
      at(sandbox),
    );
    expect(planned.code, planned.stderr).toBe(10);
    const rows = planned.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => `${r.kind} ${r.action} ${r.name}`).sort()).toEqual([
      'oauth_client create portal',
      'oauth_client create portal',
      `webhook create ${URL_}`,
      `webhook create ${URL_}`,
    ]);
    // A saved plan has its creations already: the flag is for a file.
    expect(await svc.run(['apply', planFile, '--create-missing', '--yes'], at(sandbox))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        'error: --create-missing is for -f FILE: a saved plan has its creations in it already',
      ),
    });
    const secrets = join(dir, 'secrets-plan');
    const applied = await svc.run(['apply', planFile, '--secret-dir', secrets, '--yes'], at(sandbox));
    expect(applied.code, applied.stderr).toBe(0);
    await expectRestored(sandbox, secrets);
    const again = await svc.run(['plan', '-f', exported], at(sandbox));
    expect(again).toEqual({
      code: 0,
      stdout: '',
      stderr: `no changes: the live state of 1 tenant matches ${exported}\n`,
    });
  });

  it('a run that lost every answer is resumed: each made once, both secrets written', async () => {
    const sandbox = third();
    const secrets = join(dir, 'secrets-resumed');
    // Everything is read and planned; the network loses the answers of the changes.
    const losing = losingAnswersOnConfirm(sandbox);
    const args = ['apply', '-f', exported, '--create-missing', '--secret-dir', secrets];
    const first = await svc.run(args, {
      ...at(sandbox),
      tty: true,
      prompter: losing,
      env: { ...at(sandbox).env, SVC_MAX_RETRIES: '0' },
    });
    sandbox.faults.update({ drop_rate: 0 });
    expect(first.code, first.stderr).toBe(7);
    expect(await webhooks(sandbox)).toHaveLength(2);
    expect(await clients(sandbox)).toHaveLength(2);
    expect(readdirSync(secrets)).toEqual([]);

    const again = await svc.run([...args, '--yes'], at(sandbox));
    expect(again.code, again.stderr).toBe(0);
    await expectRestored(sandbox, secrets);
    expect(await svc.run(['plan', '-f', exported], at(sandbox))).toMatchObject({ code: 0 });
  });

  it('each result row names its file entry (line, ref); a table lists them in file order (review-a s8 3)', async () => {
    const sandbox = second();
    const restore = async (tenant: string, flags: string[], options: object = {}) => {
      const text = readFileSync(exported, 'utf8').replace(/tenants: acme-labs.*/, `tenants: ${tenant}`);
      const file = writeFile(dir, `${tenant}.yaml`, text);
      const secrets = join(dir, `secrets-${tenant}`);
      const args = [
        'apply',
        '-f',
        file,
        '--create-missing',
        '--secret-dir',
        secrets,
        '--yes',
        '--concurrency',
        '4',
      ];
      const r = await svc.run([...args, ...flags], { ...at(sandbox), ...options });
      expect(r.code, r.stderr).toBe(0);
      return { lines: text.split('\n'), stdout: r.stdout };
    };
    const { lines, stdout } = await restore('acme-ledger-uk', ['--json']);
    const rows = JSON.parse(stdout) as Array<{ kind: string; line: number; ref: string; name: string }>;
    expect(rows).toHaveLength(4);
    // Each row's entry is the exported one whose id is its ref, at its line.
    for (const row of rows) expect(lines[row.line - 1]).toContain(`id: ${row.ref}`);
    expect(new Set(rows.map((r) => r.ref)).size).toBe(4);

    const table = await restore('acme-apac', [], { tty: { stdin: true, stdout: true }, columns: 200 });
    const shown = table.stdout.trimEnd().split('\n');
    expect(shown[0]).toMatch(/^LINE +TENANT +KIND +ACTION +NAME +STATUS +ID +DETAIL$/);
    const order = shown.slice(1).map((l) => Number(l.split(/ +/)[0]));
    expect(order).toHaveLength(4);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    for (const n of order) expect(table.lines[n - 1]).toMatch(/- (id|client_id): /);
  });

  it('two entries of one URL without ids that say different things are still a problem', async () => {
    const file = writeFile(
      dir,
      'twice.yaml',
      `version: 1
blocks:
  - tenants: acme-labs
    webhooks:
      - url: ${URL_}
        event_types: [exception.created]
      - url: ${URL_}
        event_types: [exception.resolved]
`,
    );
    const plan = await svc.run(['plan', '-f', file, '--create-missing'], at(second()));
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain(
      `${file}:7: webhook ${URL_} is declared again for acme-labs with other values (first at line 5); webhooks that share a URL are told apart by their "id"`,
    );
  });
});
