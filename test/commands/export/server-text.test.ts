/**
 * Server text in `svc export` (findings-attack19 F3, F6): on a terminal the document escapes C1
 * controls, bidi overrides and line separators as `\uXXXX` (the same value in YAML and JSON), while
 * the file written with --output keeps every byte; a tenant's display name with a line break stays
 * in its comment line, so svc plan reads svc's own export.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { as, writeFile } from '../../helpers/ascode.js';
import { useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { ACME, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext({ users: 2 });
const proxy = useReshapingProxy(svc.sandbox);
const dir = useTempDir('svc-export-text-');

const CSI = 'Audit read-only\u009b8m';
const BIDI = 'abc\u202edef\u2028g';
const RAW = /[\u0080-\u009f\u202e\u2028]/;

beforeAll(async () => {
  await as(svc.sandbox(), ACME, 'POST', '/v1/roles', {
    name: 'aa-first',
    description: CSI,
    permissions: ['exception.read'],
  });
  await as(svc.sandbox(), ACME, 'POST', '/v1/roles', {
    name: 'd-bidi',
    description: BIDI,
    permissions: ['exception.read'],
  });
});

describe('svc export on a terminal (F3)', () => {
  it('YAML: C1 and bidi controls are \\u escapes, and the text on the screen still reads back the same', async () => {
    const shown = await svc.run(['export', '--only', 'roles'], { tty: true });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toMatch(RAW);
    expect(shown.stdout).toContain('description: "Audit read-only\\u009b8m"');
    expect(shown.stdout).toContain('description: "abc\\u202edef\\u2028g"');
    const copied = writeFile(dir, 'copied.yaml', shown.stdout);
    const plan = await svc.run(['plan', '-f', copied]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it('--json: the same escapes, the same document', async () => {
    const shown = await svc.run(['export', '--only', 'roles', '--json'], { tty: true });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toMatch(RAW);
    expect(shown.stdout).toContain('"description": "Audit read-only\\u009b8m"');
    const roles = JSON.parse(shown.stdout).blocks[0].roles as Array<{ name: string; description: string }>;
    expect(roles.find((r) => r.name === 'd-bidi')?.description).toBe(BIDI);
  });

  it('the file of --output keeps the bytes, and round-trips', async () => {
    const file = join(dir, 'kept.yaml');
    const made = await svc.run(['export', '--only', 'roles', '-o', file], { tty: true });
    expect(made.code, made.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain(`description: ${JSON.stringify(CSI)}`);
    const plan = await svc.run(['plan', '-f', file]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});

describe("a tenant's display name with a line break (F6)", () => {
  it('stays in its comment line: svc plan reads the export', async () => {
    const rename = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(rename);
      else if (value !== null && typeof value === 'object') {
        const record = value as Record<string, unknown>;
        if (record.display_name === 'Acme Treasury') record.display_name = 'Acme\nversion: 2\u2028x';
        Object.values(record).forEach(rename);
      }
    };
    proxy().reshape((answer) => rename(answer.body));
    const through = { env: { SVC_BASE_URL: proxy().url } };
    const file = join(dir, 'renamed.yaml');
    const made = await svc.run(['export', '--only', 'roles', '-o', file], through);
    expect(made.code, made.stderr).toBe(0);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines[0]).toMatch(/^# svc export of Acme version: 2\\u2028x \(acme-treasury\) at \S+Z/);
    expect(lines[1]).toMatch(/^# svc plan -f FILE/);
    const plan = await svc.run(['plan', '-f', file], through);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});
