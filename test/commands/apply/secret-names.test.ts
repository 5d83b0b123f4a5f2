import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// svc apply --secret-dir names a new webhook's secret file after its URL as a person wrote it,
// though the platform keeps (and answers) the URL percent-encoded: the same readable name an
// OAuth client's gets (src/ascode/secrets.ts safe()).
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = mkdtempSync(join(tmpdir(), 'svc-secret-names-'));

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
