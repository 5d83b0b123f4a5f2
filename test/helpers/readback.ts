/**
 * The setup of review29d M2's tests (a run that sent nothing reads nothing back), shared by the
 * roles file run's and apply's: an owner of an enabled webhook, the webhooks' reads failing once the
 * question is asked, a file in the run's state directory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ConnectionError } from '../../src/http/errors.js';
import type { Platform } from '../../src/platform/index.js';
import { ACME, adminGrant, call, type useSandboxContext } from './sandbox.js';

type Svc = ReturnType<typeof useSandboxContext>;

/** usr_rule_author holds tenant_admin and owns an enabled webhook. */
export async function ownerWithWebhook(svc: Svc): Promise<void> {
  await adminGrant(svc.sandbox(), ACME, 'usr_rule_author', 'tenant_admin');
  const made = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
    token: svc.sandbox().issueToken('usr_rule_author').token,
    tenant: ACME,
    body: { url: 'https://ra.example/h', event_types: ['exception.created'], idempotency_key: 'rb-1' },
  });
  expect(made.status, made.text).toBe(201);
}

/** The webhooks' reads answer until the question is asked (the forecast's); every later read fails. */
export function laterReadsFail(platform: Platform, questions: readonly string[]): void {
  const listAll = platform.webhooks.listAll.bind(platform.webhooks);
  platform.webhooks.listAll = (...args: Parameters<typeof listAll>) => {
    if (questions.length === 0) return listAll(...args);
    return (async function* () {
      yield* [];
      throw new ConnectionError('connection reset');
    })();
  };
}

/** `text` written as `name` in the run's state directory; its path. */
export function fileIn(svc: Svc, name: string, text: string): string {
  const dir = svc.env().SVC_STATE_DIR as string;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}
