/**
 * Advice followed in the same shell acts where the run did (attack25a F3, F4): under `-p ops
 * --tenant acme-treasury` (a profile that is not the active one, a tenant given as a flag) every
 * command line a refusal names carries both. Pasted bare, each acted on the active profile's
 * default tenant: "webhook not found", or a revoke asked of a grant in a tenant nobody named.
 */
import { describe, expect, it } from 'vitest';
import { remedyFor } from '../../src/commands/webhooks/remedies.js';
import { svcCommand } from '../../src/config/settings.js';
import { runInProcess } from '../helpers/context.js';
import { requestCount, useSandboxContext } from '../helpers/sandbox.js';
import { createWebhook } from '../helpers/webhooks.js';

const svc = useSandboxContext();
const AT = ['-p', 'ops', '--tenant', 'acme-treasury'];
const LINE = 'svc -p ops --tenant acme-treasury';

/** svc under profile "ops" (made here, not the active one) and --tenant, SVC_TENANT unset. */
async function run(argv: string[]) {
  const env = { ...svc.env(), SVC_TENANT: undefined };
  const made = await runInProcess(['-p', 'ops', 'config', 'set', 'base_url', svc.sandbox().url], env);
  if (made.code !== 0) throw new Error(made.stderr);
  return runInProcess([...AT, ...argv], env);
}

describe('a disabled webhook: the command that enables it (attack25a F3)', () => {
  it.each([
    ['webhooks test', (w: string) => ['webhooks', 'test', w, '--no-wait']],
    ['sandbox trigger --webhook', (w: string) => ['sandbox', 'trigger', 'webhook.test', '--webhook', w]],
    ['webhooks replay --dlq', (w: string) => ['webhooks', 'replay', w, '--dlq', '--no-wait']],
  ])('%s: exit 6, `svc -p ops --tenant acme-treasury webhooks update W --enable`', async (_, argv) => {
    const { id } = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none', { status: 'disabled' });
    const r = await run(argv(id));
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr.trimEnd()).toMatch(
      new RegExp(`; enable it with: ${LINE} webhooks update ${id} --enable$`),
    );
  });
});

describe('the remedy of a delivery its stopped webhook cancelled (attack25a F3)', () => {
  it('names get, update --enable and replay --dlq in the run’s command lines', () => {
    const settings = {
      profile: 'ops',
      profileSource: 'flag' as const,
      values: { tenant: 'acme-labs' },
      sources: { tenant: 'flag' as const },
    };
    const line = (words: string) => svcCommand(settings, words);
    expect(remedyFor('webhook_stopped', 'wh_1', line)).toBe(
      'the platform stopped the webhook, so the attempt was not made (svc -p ops --tenant acme-labs webhooks get wh_1 says why); ' +
        'once someone who holds the read permissions of its kinds without an end date enables it ' +
        '(svc -p ops --tenant acme-labs webhooks update wh_1 --enable), and so owns it, replay the delivery: ' +
        'it is in the dead-letter queue (svc -p ops --tenant acme-labs webhooks replay wh_1 --dlq)',
    );
  });
});

describe('USER and ROLE swapped: the line meant (attack25a F4)', () => {
  it.each([
    [
      ['roles', 'revoke', 'tenant_viewer', 'usr_lead', '--yes'],
      `${LINE} roles revoke usr_lead tenant_viewer --yes`,
    ],
    [
      [
        'roles',
        'assign',
        'tenant_viewer',
        'usr_lead',
        '--expires-in',
        '1h',
        '--justification',
        'on call, "Q3"',
      ],
      `${LINE} roles assign usr_lead tenant_viewer --expires-in 1h --justification 'on call, "Q3"'`,
    ],
    [
      [
        'roles',
        'assign',
        'tenant_viewer',
        'usr_lead',
        '--extend',
        '--expires-in',
        'never',
        '--justification',
        'x',
      ],
      `${LINE} roles assign usr_lead tenant_viewer --expires-in never --justification x --extend`,
    ],
  ])('%j: exit 2, the same line with the two swapped, nothing sent', async (argv, line) => {
    const before = await requestCount(svc.sandbox());
    const r = await run(argv);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: arguments are USER ROLE: did you mean \`${line}\`?\n`,
    ]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });
});
