import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// attack25b L5: under umask 000 `svc export -o` wrote an access file holding no secret svc saw
// 0666: another local user could add grants to it before `svc apply -f` read it (and a URL secret
// no rule knows was readable by all). Every file export and plan --out make is 0600.
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = useTempDir('svc-export-umask-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;

/** `run` under `mask`, the process's umask put back after it (the worker runs other files next). */
async function underUmask<T>(mask: number, run: () => Promise<T>): Promise<T> {
  const old = process.umask(mask);
  try {
    return await run();
  } finally {
    process.umask(old);
  }
}

describe('svc export -o and svc plan --out with no secret in the file', () => {
  it.each([
    ['000', 0o000],
    ['022', 0o022],
  ])('are 0600 under umask %s', async (_label, mask) => {
    const out = join(dir, `treasury-${mask}.yaml`);
    const ex = await underUmask(mask, () => svc.run(['export', '--tenant', 'acme-treasury', '-o', out]));
    expect(ex.code, ex.stderr).toBe(0);
    expect(ex.stderr).not.toContain('carries a secret');
    expect(mode(out)).toBe(0o600);

    const saved = join(dir, `treasury-${mask}.plan.json`);
    const plan = await underUmask(mask, () => svc.run(['plan', '-f', out, '--out', saved]));
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).not.toContain('carries a secret');
    expect(mode(saved)).toBe(0o600);
  });
});
