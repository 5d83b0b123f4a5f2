/**
 * attack29a F5: `oauth rotate-secret` asked before it read anything: `Rotate the secret of
 * cli_…? …`, naming neither the client nor the tenant (SVC_TENANT=acme-labs rotated there under it),
 * and a client id that does not exist was asked about, failing only after "y" (exit 5). It reads
 * the client first, then asks naming it and the tenant, as `oauth delete` and `webhooks delete` do.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { scriptedPrompter } from '../../helpers/context.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext();
const LABS = tenantId('acme-labs');
const dir = useTempDir('svc-rotate-question-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The requests that change something the sandbox has answered. */
async function changes(): Promise<number> {
  const stats = (await call(svc.sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([route]) => !/^(GET|HEAD) /.test(route))
    .reduce((sum, [, n]) => sum + n, 0);
}

describe('oauth rotate-secret asks after reading the client', () => {
  it('names the client and the tenant it is in; No rotates nothing', async () => {
    const made = await svc.run(
      ['oauth', 'create', '--name', 'Labs vendor', '--redirect-uri', 'https://labs.example/cb'].concat([
        '--scope',
        'read:exceptions',
        '--show-secret',
        '--json',
      ]),
      { env: { SVC_TENANT: LABS } },
    );
    expect(made.code, made.stderr).toBe(0);
    const id = (JSON.parse(made.stdout) as { client_id: string }).client_id;
    const prompter = scriptedPrompter([false]);
    const before = await changes();
    const r = await svc.run(['oauth', 'rotate-secret', id, '--secret-file', join(dir, 'labs.secret')], {
      tty: true,
      prompter,
      env: { SVC_TENANT: 'acme-labs' },
    });
    expect([r.code, r.stderr]).toEqual([2, 'error: cancelled; nothing was changed\n']);
    expect(prompter.questions).toEqual([
      `Rotate the secret of OAuth client Labs vendor (${id}) in Acme Labs (acme-labs)? The current secret stops working at once.`,
    ]);
    expect(await changes()).toBe(before);
  });

  it('a client that does not exist: not asked about, exit 5, nothing sent but the read', async () => {
    const prompter = scriptedPrompter([]);
    const before = await changes();
    const r = await svc.run(
      ['oauth', 'rotate-secret', 'cli_doesnotexist00000000000', '--secret-file', join(dir, 'none.secret')],
      { tty: true, prompter },
    );
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/^error: OAuth client "?cli_doesnotexist00000000000"? not found/);
    expect(prompter.questions).toEqual([]);
    expect(await changes()).toBe(before);
  });
});
