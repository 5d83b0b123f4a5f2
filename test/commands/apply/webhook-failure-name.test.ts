import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as, LABS, writeFile } from '../../helpers/ascode.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// s16 note: svc apply's failure line named a failed webhook by its masked URL alone
// (`update webhook https://hooks.example.com/in?token=[redacted]`): two webhooks can share it, and a
// user cannot act on it. It names the webhook by its id, the masked URL beside it, as export's
// warning does.
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = useTempDir('svc-apply-webhook-name-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// A platform that refuses every change of a webhook (svc cannot know beforehand).
const refusing = useLossyProxy(svc.sandbox, {
  lose: () => false,
  refuse: (method, path) =>
    method === 'PATCH' && path.startsWith('/v1/webhooks/')
      ? refusal(403, 'insufficient_permission')
      : undefined,
});

describe('svc apply: a webhook change that fails', () => {
  it('is named by its id in the failure line, its URL masked beside it', async () => {
    const url = 'https://hooks.example.com/in?token=s3cr3tTokenValue123456';
    const made = await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', {
      url,
      event_types: ['exception.created'],
    });
    const file = writeFile(
      dir,
      'hook.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    webhooks:\n      - id: ${made.id}\n        url: "${url}"\n        event_types: [exception.created, exception.resolved]\n`,
    );
    const r = await svc.run(['apply', '-f', file, '--yes', '--journal', join(dir, 'j')], {
      env: { SVC_BASE_URL: refusing().url },
    });
    expect(r.code, r.stderr).toBe(7);
    const error = r.stderr.trimEnd().split('\n').at(-1);
    expect(error).toBe(
      `error: 1 of 1 item failed: acme-labs: update webhook ${made.id} (https://hooks.example.com/in?token=[redacted]): refused by the test proxy; ` +
        `fix them and run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal ${join(dir, 'j')}); --ndjson prints one result per item`,
    );
    expect(r.stderr).not.toContain('s3cr3t');
  });
});
