import { describe, expect, it } from 'vitest';
import { parseRolesRevoke, runRolesRevoke } from '../../../src/commands/roles/revoke.js';
import { fileIn, laterReadsFail, ownerWithWebhook } from '../../helpers/readback.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// review29d M2: the read-back of the webhooks a run stopped sat in a `finally`, so a run answered
// No (nothing sent) read them again, and a failed read said "their owners' grants changed" right
// after "cancelled; nothing was changed". Only a run that sent a revocation (a removal) reads back.
const svc = useSandboxContext();

describe('a run that sent nothing reads nothing back', () => {
  it('roles revoke --file answered No', async () => {
    await ownerWithWebhook(svc);
    const file = fileIn(svc, 'rb.csv', 'user,role\nusr_rule_author,tenant_admin\n');
    const { ctx, questions, stderr } = svc.context({ tty: true, answers: [false] });
    laterReadsFail(await ctx.platform(), questions);
    await expect(runRolesRevoke(ctx, parseRolesRevoke(undefined, undefined, { file }))).rejects.toThrow(
      'cancelled; nothing was changed',
    );
    expect(questions).toHaveLength(1);
    expect(stderr()).toBe('');
  });
});
