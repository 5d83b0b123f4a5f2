import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LABS, losingAnswersOnConfirm, writeFile } from '../../helpers/ascode.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// A run of svc apply whose creation was made by the platform but whose answer — and with it the
// one-time secret — was lost (issue 14). The same command resumes the run with the same plan and
// keys: the platform answers from its record, so the webhook exists once and its secret is saved.
const svc = useSandboxContext({}, { tenant: false });
const dir = useTempDir('svc-resume-');

describe('svc apply, resumed', () => {
  it('recovers the secret of a creation whose answer was lost, without creating it twice', async () => {
    const sandbox = svc.sandbox();
    const file = writeFile(
      dir,
      'lost.yaml',
      'version: 1\nblocks:\n  - tenants: acme-labs\n    webhooks:\n      - { url: "https://hooks.example.com/lost", event_types: [webhook.test] }\n',
    );
    const secrets = join(dir, 'secrets');
    // Everything is read and planned; the network loses the answers of the changes.
    const losing = losingAnswersOnConfirm(sandbox);
    const first = await svc.run(['apply', '-f', file, '--secret-dir', secrets], {
      tty: true,
      prompter: losing,
      clock: { now: () => Date.now() },
      env: { SVC_MAX_RETRIES: '0' },
    });
    sandbox.faults.update({ drop_rate: 0 });
    expect(first.code, first.stderr).toBe(7);
    expect(readdirSync(secrets)).toEqual([]);
    const hooks = async () =>
      (
        await call(sandbox, 'GET', '/v1/webhooks', { token: sandbox.adminToken, tenant: LABS })
      ).body.items.filter((w: { url: string }) => w.url === 'https://hooks.example.com/lost');
    expect(await hooks()).toHaveLength(1);

    const again = await svc.run(['apply', '-f', file, '--secret-dir', secrets, '--yes', '--ndjson'], {
      clock: { now: () => Date.now() },
    });
    expect(again.code, again.stderr).toBe(0);
    const [row] = again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const [hook] = await hooks();
    expect(row).toMatchObject({ kind: 'webhook', action: 'create', status: 'ok', id: hook.id });
    expect(await hooks()).toHaveLength(1);
    const secret = (await call(sandbox, 'GET', `/_sandbox/webhooks/${hook.id}/secret`)).body.secret;
    expect(readFileSync(row.secret_file, 'utf8')).toBe(secret);
  });
});
