import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { BIN, baseEnv, sandboxEnv, svc } from '../helpers/svc.js';

// 10,000 rows against a sandbox with 10,000 generated users (usr_bulk_000001 …).
const ROWS = 10_000;
const sandbox = useSandbox({ users: ROWS });
const dir = mkdtempSync(join(tmpdir(), 'svc-roles-10k-'));
const TENANT = tenantId('acme-treasury');
const env = sandboxEnv(sandbox);

afterEach(async () => {
  await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { fail_rate: 0 } });
});

async function bigFile(role: string): Promise<{ path: string; roleId: string }> {
  const created = await call(sandbox(), 'POST', '/v1/roles', {
    token: sandbox().adminToken,
    tenant: TENANT,
    body: { name: role, permissions: ['exception.read'], idempotency_key: `role-${role}` },
  });
  const rows = Array.from(
    { length: ROWS },
    (_, i) => `usr_bulk_${String(i + 1).padStart(6, '0')},${role},7d,${role}`,
  );
  const path = join(dir, `${role}.csv`);
  writeFileSync(path, `user,role,expires_in,justification\n${rows.join('\n')}\n`);
  return { path, roleId: created.body.id };
}

const parse = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { line: number; status: string; reason?: string });
const counts = async (roleId: string) =>
  (await call(sandbox(), 'GET', `/_sandbox/assignments?tenant_id=${TENANT}&role_id=${roleId}`)).body;

describe('10,000 grants from one file', () => {
  it('killed with SIGKILL about halfway and run again: exactly 10,000 assignments, none twice', async () => {
    const { path, roleId } = await bigFile('sigkill');
    const child = spawn(process.execPath, [BIN, 'roles', 'assign', '--file', path, '--ndjson'], {
      env: baseEnv(env),
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (!child.killed && out.split('\n').length > ROWS / 2) child.kill('SIGKILL');
    });
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    expect([code, signal]).toEqual([null, 'SIGKILL']);
    const before = parse(out.slice(0, out.lastIndexOf('\n') + 1));
    expect(before.length).toBeGreaterThanOrEqual(ROWS / 2);
    expect(before.length).toBeLessThan(ROWS);
    expect(readdirSync(join(env.SVC_STATE_DIR!, 'journals'))).toHaveLength(1);

    const again = await svc(['roles', 'assign', '--file', path, '--ndjson'], { env, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    const after = parse(again.stdout);
    // Every line exactly once; what the killed run finished comes from its journal.
    expect(after.map((r) => r.line).sort((a, b) => a - b)).toEqual(
      Array.from({ length: ROWS }, (_, i) => i + 2),
    );
    const fromJournal = new Set(after.filter((r) => r.reason === 'journal').map((r) => r.line));
    for (const r of before) expect(fromJournal.has(r.line)).toBe(true);
    expect(after.every((r) => r.status === 'ok' || r.reason === 'journal')).toBe(true);
    // Rows in flight when the first run was killed are answered from the platform's idempotency records.
    expect(again.stderr).toMatch(
      /^(?:[\d,]+ of these had been granted before by a request with the same idempotency key; the platform answered with that grant\n)?✓ [\d,]+ granted, [\d,]+ skipped in \d+\.\d s\n$/,
    );
    // Counted in the sandbox: every assignment ever made for the role, and no pair twice.
    expect(await counts(roleId)).toEqual({ total: ROWS, active: ROWS, users: ROWS, duplicates: 0 });
    expect(readdirSync(join(env.SVC_STATE_DIR!, 'journals'))).toEqual([]);
  }, 180_000);

  it('with 5% injected 503s (before and after the change) every row succeeds exactly once', async () => {
    const { path, roleId } = await bigFile('flaky');
    await call(sandbox(), 'PUT', '/_sandbox/faults', {
      body: { fail_rate: 0.05, phase: 'both', retry_after: '0', seed: 4242 },
    });
    const r = await svc(['roles', 'assign', '--file', path, '--ndjson'], {
      env: { ...env, SVC_MAX_RETRIES: '8' },
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const results = parse(r.stdout);
    expect(results).toHaveLength(ROWS);
    expect(results.every((x) => x.status === 'ok')).toBe(true);
    const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
    // Faults really struck: some answers were 503 and were retried.
    expect(stats['POST /v1/users/:id/roles 503']).toBeGreaterThan(ROWS * 0.02);
    expect(await counts(roleId)).toEqual({ total: ROWS, active: ROWS, users: ROWS, duplicates: 0 });
  }, 180_000);
});
