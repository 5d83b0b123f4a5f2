import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';

// Found by the s15 Ctrl-C sweep (test/cut-sweep/config.test.ts): `svc config set tenant T` checks
// T against the caller's tenants; a Ctrl-C during that read was taken for "the server cannot be
// asked", so the tenant was saved unchecked and the command exited 0. Ctrl-C stops it: nothing
// is saved, exit 130.
const sandbox = useSandbox();
const svc = bulkRunner(sandbox);
let cut: AbortController | undefined;
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: async () => {
    cut?.abort();
    cut = undefined;
    await new Promise((resolve) => setTimeout(resolve, 50));
  },
});

describe('config set tenant, Ctrl-C during the check', () => {
  it('saves nothing, says so, exits 130', async () => {
    cut = new AbortController();
    const r = await svc.run(['-p', 'cut', 'config', 'set', 'tenant', 'acme-treasury'], {
      signal: cut.signal,
      env: { SVC_BASE_URL: proxy().url, SVC_TENANT: '' },
    });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 130,
      stdout: '',
      stderr: 'error: interrupted while checking tenant acme-treasury; nothing was saved\n',
    });
    expect(existsSync(join(svc.dir, 'config', 'config.json'))).toBe(false);
    // Uncut, the same command saves it.
    const again = await svc.run(['-p', 'cut', 'config', 'set', 'tenant', 'acme-treasury'], {
      env: { SVC_TENANT: '' },
    });
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(join(svc.dir, 'config', 'config.json'))).toBe(true);
  });
});
