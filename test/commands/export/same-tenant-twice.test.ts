import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LABS } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// One tenant named by its slug and by its id is one tenant (review s13, ascode F13: it was
// counted "2 tenants" and named twice in the file's header).
const svc = useSandboxContext({ users: 5 });
const dir = useTempDir('svc-export-twice-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('svc export --tenant SLUG --tenant ID of the same tenant', () => {
  it('counts and names it once', async () => {
    const out = join(dir, 'g.yaml');
    const r = await svc.run([
      'export',
      '--tenant',
      'acme-labs',
      '--tenant',
      LABS,
      '--only',
      'roles',
      '-o',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`✓ exported 0 custom roles of 1 tenant to ${out}\n`);
    const header = readFileSync(out, 'utf8').split('\n')[0]!;
    expect(header.startsWith('# svc export of Acme Labs (acme-labs) at ')).toBe(true);
  });
});
