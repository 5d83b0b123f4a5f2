import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// svc apply --secret-dir names a new webhook's secret file after its URL as a person wrote it,
// though the platform keeps (and answers) the URL percent-encoded: the same readable name an
// OAuth client's gets (src/ascode/secrets.ts safe()).
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = useTempDir('svc-secret-names-');

describe('svc apply --secret-dir', () => {
  it('names the secret of a webhook with a non-ASCII URL path by its letters, not its percent-encoding', async () => {
    const file = writeFile(
      dir,
      'hook.yaml',
      `version: 1
blocks:
  - tenants: acme-payments-eu
    webhooks:
      - url: https://hooks.example.com/ünï
        event_types: [exception.created]
`,
    );
    const secrets = join(dir, 'secrets');
    const applied = await svc.run(['apply', '-f', file, '--secret-dir', secrets, '--yes', '--ndjson']);
    expect(applied.code, applied.stderr).toBe(0);
    const hook = ndjson(applied.stdout).find((r) => r.kind === 'webhook');
    expect(readdirSync(secrets)).toEqual([
      `acme-payments-eu.webhook.hooks.example.com_uni.${hook.id}.secret`,
    ]);
  });
});

// attack17 A1: the name was built from the whole URL, query included, so a URL's credential
// (`?token=…`, a Slack key in its path) was in the file's name — printed in the apply row right
// beside the URL it masks, and in every listing of the directory. The name keeps the URL's host
// and path only, without a path credential (redactUrlText's rule); the id says which webhook it is.
describe('svc apply --secret-dir, a webhook URL with a credential in it', () => {
  it('names its secret file without the credential (the --ndjson row shows the URL masked)', async () => {
    const file = writeFile(
      dir,
      'cred.yaml',
      `version: 1
blocks:
  - tenants: acme-payments-eu
    webhooks:
      - url: "https://relay3.example.com/in?token=tok_live_3333aaaa4444"
        event_types: [exception.created]
      - url: "https://hooks.slack.com/services/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"
        event_types: [exception.created]
`,
    );
    const secrets = join(dir, 'secrets-cred');
    const applied = await svc.run(['apply', '-f', file, '--secret-dir', secrets, '--yes', '--ndjson']);
    expect(applied.code, applied.stderr).toBe(0);
    const rows = ndjson(applied.stdout);
    const id = (host: string) => rows.find((r) => String(r.name).includes(host))?.id;
    const relay = `acme-payments-eu.webhook.relay3.example.com_in.${id('relay3')}.secret`;
    const slack = `acme-payments-eu.webhook.hooks.slack.com_services_T0AAAA1111_B0BBBB2222.${id('slack')}.secret`;
    expect(readdirSync(secrets).sort()).toEqual([slack, relay].sort());
    expect(rows.map((r) => r.secret_file).sort()).toEqual(
      [join(secrets, slack), join(secrets, relay)].sort(),
    );
  });
});

// s18 mask18 #3: two webhooks whose URLs differ only in a secret read alike in the rows
// (`?token=[redacted]`) and by host and path in the file names: the id in each name tells them
// apart, each file holding its own webhook's secret.
describe('svc apply --secret-dir, two webhooks whose masked URLs are equal', () => {
  it('writes two files, each named by its own id, with its own secret', async () => {
    const file = writeFile(
      dir,
      'alike.yaml',
      `version: 1
blocks:
  - tenants: acme-payments-eu
    webhooks:
      - url: "https://relay7.example.com/in?token=tok_live_7777aaaa"
        event_types: [exception.created]
      - url: "https://relay7.example.com/in?token=tok_live_8888bbbb"
        event_types: [exception.created]
`,
    );
    const secrets = join(dir, 'secrets-alike');
    const applied = await svc.run(['apply', '-f', file, '--secret-dir', secrets, '--yes', '--ndjson']);
    expect(applied.code, applied.stderr).toBe(0);
    const rows = ndjson(applied.stdout);
    expect(rows.map((r) => r.name)).toEqual([
      'https://relay7.example.com/in?token=[redacted]',
      'https://relay7.example.com/in?token=[redacted]',
    ]);
    const names = rows.map((r) => `acme-payments-eu.webhook.relay7.example.com_in.${r.id}.secret`);
    expect(readdirSync(secrets).sort()).toEqual([...names].sort());
    expect(rows.map((r) => r.secret_file)).toEqual(names.map((n) => join(secrets, n)));
    const held = names.map((n) => readFileSync(join(secrets, n), 'utf8'));
    expect(new Set(held).size).toBe(2);
    for (const secret of held) expect(secret).toMatch(/^whsec_/);
  });
});
