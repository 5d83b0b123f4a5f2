import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../helpers/sandbox.js';
import { createWebhook } from '../helpers/webhooks.js';

// attack29a F8: a dry run's --json said it was one only through its rows' `plan` key, and an
// empty dry run printed `[]` and the same line as an empty real run. Each row now carries
// "dry_run": true (added: `plan` stays), and an empty dry run's line says it is one.
const svc = useSandboxContext();

describe('--json of a dry run', () => {
  it('marks each row, and an empty one says so on stderr', async () => {
    const dir = svc.env().SVC_STATE_DIR as string;
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'r.csv');
    writeFileSync(file, 'user,role\nusr_lead,tenant_lead\n');
    const dry = await svc.run(['roles', 'revoke', '--file', file, '--dry-run', '--json']);
    const rows = JSON.parse(dry.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.line, r.plan, r.dry_run])).toEqual([[2, 'revoke', true]]);
    const real = await svc.run(['roles', 'revoke', '--file', file, '--yes', '--json']);
    expect(JSON.parse(real.stdout)[0]).not.toHaveProperty('dry_run');

    const webhook = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none')).id;
    const empty = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--dry-run', '--json']);
    expect([empty.code, empty.stdout]).toEqual([0, '[]\n']);
    expect(empty.stderr).toMatch(/^dry run: nothing to discard: .*; nothing was changed\n$/);
    const none = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--yes', '--json']);
    expect(none.stderr).toMatch(/^nothing to discard: /);
  });
});
