import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePlan, runPlan } from '../../../src/commands/plan/index.js';
import { exitCodeFor } from '../../../src/errors.js';
import { renderError } from '../../../src/output/errors.js';
import { user, writeFile } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// `svc plan --out`: the saved plan is an outcome of its own. A reader gone from stdout (`| head`)
// or a full disk does not hide that the plan was saved and how to apply it (it was lost with the
// output); a plan larger than svc apply reads is refused whole, with no file left behind.
const svc = useSandboxContext({ users: 5, tenants: 1 }, { tenant: false });
const dir = useTempDir('svc-plan-saved-');
const ACCESS = `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - user: ${user(4)}\n        role: tenant_viewer\n`;
const summary = 'plan: 1 to create, 0 to update, 0 to delete in 1 of 1 tenant';
const savedLine = (out: string) =>
  `plan saved to ${out}; svc apply ${out} applies it while the live state is unchanged\n`;

describe('svc plan --out on a closed stdout', () => {
  it.each([
    ['a pipe', []],
    ['--json', ['--json']],
    ['--ndjson', ['--ndjson']],
  ])('%s: changes pending (exit 10), and the plan was saved says so', async (_what, mode) => {
    const file = writeFile(dir, 'pending.yaml', ACCESS);
    const out = join(dir, `pending-${mode.length}.json`);
    const r = await svc.run(['plan', '-f', file, '--out', out, ...mode], { stdoutFails: 'EPIPE' });
    const said = `changes are pending (stdout closed before the plan was printed whole): ${summary}`;
    expect(r).toEqual({
      code: 10,
      stdout: '',
      stderr:
        savedLine(out) +
        (mode.length > 0
          ? `${JSON.stringify({ error: { code: 'changes_pending', message: said, exit_code: 10 } })}\n`
          : `error: ${said}\n`),
    });
    expect(JSON.parse(readFileSync(out, 'utf8')).summary.create).toBe(1);
  });

  it('--json, no changes pending: exit 0, and the save is said', async () => {
    const exported = join(dir, 'exported.yaml');
    expect((await svc.run(['export', '--tenant', 'acme-labs', '-o', exported])).code).toBe(0);
    const out = join(dir, 'in-sync.json');
    const r = await svc.run(['plan', '-f', exported, '--out', out, '--json'], { stdoutFails: 'EPIPE' });
    expect(r).toEqual({ code: 0, stdout: '', stderr: savedLine(out) });
    expect(JSON.parse(readFileSync(out, 'utf8')).summary.create).toBe(0);
  });

  it('a full disk: exit 1 for the failed write, after the save is said', async () => {
    const file = writeFile(dir, 'full.yaml', ACCESS);
    const out = join(dir, 'full.json');
    const r = await svc.run(['plan', '-f', file, '--out', out], { stdoutFails: 'ENOSPC' });
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `${savedLine(out)}error: cannot write to stdout (ENOSPC); check where stdout goes (a full disk, a failed device), then run the command again\n`,
    });
    expect(existsSync(out)).toBe(true);
  });
});

describe('svc plan --out: a plan larger than svc apply reads', () => {
  it('is refused in one line (exit 2), nothing saved, nothing printed', async () => {
    const file = writeFile(dir, 'large.yaml', ACCESS);
    const out = join(dir, 'large.json');
    const { ctx, stdout, stderr } = svc.context();
    const error = await runPlan(ctx, parsePlan({ file, out }), 1000).catch((e: unknown) => e);
    const text = renderError(error, { json: false, debug: false });
    expect(text).toMatch(
      new RegExp(
        `^error: the plan is \\d+ bytes, more than svc apply reads \\(1000 bytes\\); nothing was saved to ${out}; plan fewer tenants at a time \\(split the file by its blocks' tenants:\\), or apply -f the file itself\\n$`,
      ),
    );
    expect(exitCodeFor(error)).toBe(2);
    expect([existsSync(out), stdout(), stderr()]).toEqual([false, '', '']);
    // The same plan under the real limit is saved.
    const { ctx: again } = svc.context();
    await runPlan(again, parsePlan({ file, out })).catch(() => undefined);
    expect(existsSync(out)).toBe(true);
  });
});
