import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseApply, runApply } from '../../../src/commands/apply/index.js';
import { ConnectionError } from '../../../src/http/errors.js';
import type { Platform } from '../../../src/platform/index.js';
import { ACME, adminGrant, call, useSandboxContext } from '../../helpers/sandbox.js';

// review29d M2: the read-back of the webhooks a run stopped sat in a `finally`, so a run answered
// No (nothing sent) read them again, and a failed read said "their owners' grants changed" right
// after "cancelled; nothing was changed". Only a run that sent a revocation (a removal) reads back.
const svc = useSandboxContext({}, { tenant: false });

/** usr_rule_author holds tenant_admin and owns an enabled webhook. */
async function ownerWithWebhook(): Promise<void> {
  await adminGrant(svc.sandbox(), ACME, 'usr_rule_author', 'tenant_admin');
  const made = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
    token: svc.sandbox().issueToken('usr_rule_author').token,
    tenant: ACME,
    body: { url: 'https://ra.example/h', event_types: ['exception.created'], idempotency_key: 'rb-1' },
  });
  expect(made.status, made.text).toBe(201);
}

/** The webhooks' reads answer until the question is asked (the forecast's); every later read fails. */
function laterReadsFail(platform: Platform, questions: readonly string[]): void {
  const listAll = platform.webhooks.listAll.bind(platform.webhooks);
  platform.webhooks.listAll = (...args: Parameters<typeof listAll>) => {
    if (questions.length === 0) return listAll(...args);
    return (async function* () {
      yield* [];
      throw new ConnectionError('connection reset');
    })();
  };
}

function fileIn(name: string, text: string): string {
  const dir = svc.env().SVC_STATE_DIR as string;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('a run that sent nothing reads nothing back', () => {
  it('svc apply --prune answered No', async () => {
    await ownerWithWebhook();
    const file = fileIn(
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
