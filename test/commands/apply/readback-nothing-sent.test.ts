import { describe, expect, it } from 'vitest';
import { parseApply, runApply } from '../../../src/commands/apply/index.js';
import { fileIn, laterReadsFail, ownerWithWebhook } from '../../helpers/readback.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// review29d M2: the read-back of the webhooks a run stopped sat in a `finally`, so a run answered
// No (nothing sent) read them again, and a failed read said "their owners' grants changed" right
// after "cancelled; nothing was changed". Only a run that sent a revocation (a removal) reads back.
const svc = useSandboxContext({}, { tenant: false });

describe('a run that sent nothing reads nothing back', () => {
  it('svc apply --prune answered No', async () => {
    await ownerWithWebhook(svc);
    const file = fileIn(
      svc,
      'rb.yaml',
      'version: 1\nmanage:\n  grants: listed-roles\nblocks:\n  - tenants: acme-treasury\n    grants:\n      - user: usr_admin\n        role: tenant_admin\n',
    );
    const { ctx, questions, stderr } = svc.context({ tty: true, answers: [false] });
    laterReadsFail(await ctx.platform(), questions);
    await expect(runApply(ctx, parseApply(undefined, { file, prune: true }))).rejects.toThrow('cancelled');
    expect(questions).toHaveLength(1);
    // The plan's own warning and lines, and nothing read back after.
    expect(stderr()).toContain(
      'warning: acme-treasury: svc apply --prune stops 1 webhook of usr_rule_author',
    );
    expect(stderr()).not.toContain('could not read the webhooks back');
  });
});
