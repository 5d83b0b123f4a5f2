import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as, LABS, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// s18 mask18 #2: svc apply's --json and --ndjson rows carried a webhook's URL whole (`?token=…`,
// a Slack key), though rows go to CI logs and README said only the plan document keeps it: the
// row names the webhook by its id and its masked URL (its file line too); the whole URL is in the
// access file. svc plan --ndjson's lines, one per change, are rows too. The plan document
// (plan --json, --out) keeps it whole: svc apply reads it.
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = useTempDir('svc-apply-row-labels-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN_URL = 'https://relay5.example.com/in?token=tok_live_5555aaaa6666&x=1';
const TOKEN_MASKED = 'https://relay5.example.com/in?token=[redacted]&x=1';
const SLACK_URL = 'https://hooks.slack.com/services/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';
const SLACK_MASKED = 'https://hooks.slack.com/services/T0AAAA5555/B0BBBB6666/[redacted]';
const SECRETS = ['tok_live_5555', 'Xy7Kq9Lm3Np5Rs8Tu1Vw4Yz6'];

const hooks = (...entries: Array<[url: string, id?: string]>) =>
  `version: 1\nblocks:\n  - tenants: acme-labs\n    webhooks:\n${entries
    .map(
      ([url, id]) =>
        `${id ? `      - id: ${id}\n        url: "${url}"\n` : `      - url: "${url}"\n`}        event_types: [exception.created, exception.resolved]\n`,
    )
    .join('')}`;

describe('svc apply rows name a webhook by its masked URL', () => {
  it('--ndjson: a creation (with --secret-dir) and its row', async () => {
    const file = writeFile(dir, 'create.yaml', hooks([TOKEN_URL], [SLACK_URL]));
    const secrets = join(dir, 'secrets');
    const r = await svc.run(['apply', '-f', file, '--secret-dir', secrets, '--yes', '--ndjson']);
    expect(r.code, r.stderr).toBe(0);
    // Completion order: by file line.
    const rows = ndjson(r.stdout).sort((a, b) => Number(a.line) - Number(b.line));
    expect(rows.map((row) => [row.action, row.name, row.status])).toEqual([
      ['create', TOKEN_MASKED, 'ok'],
      ['create', SLACK_MASKED, 'ok'],
    ]);
    for (const secret of SECRETS)
      expect(r.stdout + r.stderr + readdirSync(secrets).join('\n')).not.toContain(secret);
  });

  it('--json: an update, named by id and masked URL', async () => {
    const made = await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', {
      url: TOKEN_URL,
      event_types: ['exception.created'],
    });
    const file = writeFile(dir, 'update.yaml', hooks([TOKEN_URL, made.id as string]));
    const r = await svc.run(['apply', '-f', file, '--yes', '--json', '--journal', join(dir, 'j-json')]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const rows = (Array.isArray(out) ? out : out.results) as Array<Record<string, unknown>>;
    expect(rows.map((row) => [row.action, row.name, row.id])).toEqual([['update', TOKEN_MASKED, made.id]]);
    expect(r.stdout + r.stderr).not.toContain('tok_live_5555');
  });
});

describe('svc plan', () => {
  it('--ndjson lines mask it (name and url field); the --json plan document keeps it whole', async () => {
    const made = await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', {
      url: SLACK_URL,
      event_types: ['exception.created'],
    });
    const file = writeFile(dir, 'plan.yaml', hooks([`${TOKEN_URL}&new=1`, made.id as string]));
    const lines = await svc.run(['plan', '-f', file, '--ndjson']);
    expect(lines.code, lines.stderr).toBe(10);
    const change = ndjson(lines.stdout).find((c) => c.id === made.id);
    expect([change?.name, change?.fields.find((f: { field: string }) => f.field === 'url')]).toEqual([
      `${TOKEN_MASKED}&new=1`,
      { field: 'url', from: SLACK_MASKED, to: `${TOKEN_MASKED}&new=1` },
    ]);
    for (const secret of SECRETS) expect(lines.stdout).not.toContain(secret);
    const doc = await svc.run(['plan', '-f', file, '--json']);
    const whole = JSON.parse(doc.stdout).tenants[0].changes.find((c: { id: string }) => c.id === made.id);
    expect([whole.name, whole.fields.find((f: { field: string }) => f.field === 'url')]).toEqual([
      `${TOKEN_URL}&new=1`,
      { field: 'url', from: SLACK_URL, to: `${TOKEN_URL}&new=1` },
    ]);
  });
});
