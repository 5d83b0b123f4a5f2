import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePlan, runPlan } from '../../../src/commands/plan/index.js';
import { writeFile } from '../../helpers/ascode.js';
import { ACME, adminGrant, call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// attack29a F1: a plan whose removals (svc apply --prune) revoke a grant stops the webhooks its
// user owns, and the plan said nothing of it. It names them now, beside the plan.
const svc = useSandboxContext({}, { tenant: false });
const dir = useTempDir('svc-plan-stops-');

describe('svc plan: the webhooks its removals stop', () => {
  it('names them in a warning', async () => {
    await adminGrant(svc.sandbox(), ACME, 'usr_rule_author', 'tenant_admin');
    const made = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
      token: svc.sandbox().issueToken('usr_rule_author').token,
      tenant: ACME,
      body: { url: 'https://ra.example/h', event_types: ['exception.created'], idempotency_key: 'ps-1' },
    });
    expect(made.status, made.text).toBe(201);
    const file = writeFile(
      dir,
      'acc.yaml',
      `version: 1
manage:
  grants: listed-roles
blocks:
  - tenants: acme-treasury
    grants:
      - user: usr_admin
        role: tenant_admin
`,
    );
    const { ctx, stdout, stderr } = svc.context();
    await runPlan(ctx, parsePlan({ file })).catch(() => undefined);
    expect(stdout()).toContain('acme-treasury\tgrant\trevoke\tusr_rule_author tenant_admin');
    const stops = `warning: acme-treasury: svc apply --prune stops 1 webhook of usr_rule_author (${made.body.id}): a webhook delivers only while its owner holds its kinds' read permission (and, set up through an API key, while the key acts), and stays stopped after they regain it\n`;
    expect(stderr()).toContain(stops);

    // Saved, then applied with --prune: said before, and read back after the run.
    const saved = join(dir, 'plan.json');
    await runPlan(svc.context().ctx, parsePlan({ file, out: saved })).catch(() => undefined);
    const applied = await svc.run(['apply', saved, '--prune', '--yes']);
    expect(applied.stderr).toContain(stops);
    expect(applied.stderr).toContain(
      `warning: acme-treasury: the platform disabled 1 webhook of usr_rule_author (${made.body.id}): \`svc --tenant acme-treasury webhooks get ID\` says why and who may enable it again\n`,
    );
  });

  // review29d L1: svc apply -f without --prune removes no grant, so it stops no webhook, and
  // said "svc apply --prune stops 1 webhook" in a run that stopped nothing.
  it('svc apply -f without --prune says nothing of stops; with --prune it says them once', async () => {
    await adminGrant(svc.sandbox(), ACME, 'usr_rule_author', 'tenant_admin');
    const made = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
      token: svc.sandbox().issueToken('usr_rule_author').token,
      tenant: ACME,
      body: { url: 'https://ra.example/h2', event_types: ['exception.created'], idempotency_key: 'ps-2' },
    });
    expect(made.status, made.text).toBe(201);
    const file = writeFile(
      dir,
      'noprune.yaml',
      'version: 1\nmanage:\n  grants: listed-roles\nblocks:\n  - tenants: acme-treasury\n    grants:\n      - user: usr_admin\n        role: tenant_admin\n',
    );
    const kept = await svc.run(['apply', '-f', file, '--yes']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stderr).toBe(
      `nothing applied: the only difference from ${file} is 1 removal, made only with --prune\n`,
    );
    const pruned = await svc.run(['apply', '-f', file, '--prune', '--yes']);
    expect(pruned.code, pruned.stderr).toBe(0);
    const stops = `warning: acme-treasury: svc apply --prune stops 1 webhook of usr_rule_author (${made.body.id}): `;
    expect(pruned.stderr.split(stops).length - 1, pruned.stderr).toBe(1);
  });
});
