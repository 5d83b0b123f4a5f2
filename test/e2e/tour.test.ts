import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, ROOT } from '../helpers/svc.js';

describe('npm start (the tour)', () => {
  it('runs every chapter against its own sandbox and ends with how to keep one running', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'tour.cjs')], {
      env: baseEnv({ NO_COLOR: '1' }),
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    const code = await new Promise((r) => child.on('close', r));
    expect(code, out).toBe(0);
    expect(out).toContain('$ svc login --with-token < admin-token.txt');
    expect(out).toMatch(/\$ svc tenants ls\n {2}ID +SLUG +NAME/);
    expect(out).toContain('(exit 2, as expected)');
    expect(out).toContain('svc sandbox start');
    expect(out).not.toContain('tour stopped');
    expect(out).toMatch(/\$ svc login\n[^$]*✓ Logged in to http:\/\/127\.0\.0\.1:\d+ as Ada Admin/);
    expect(out).toMatch(/client secret +written to \S+vendor\.secret \(mode 0600\)/);
    expect(out).toContain(
      'the access token lacks scope read:tenants (or admin) for tenants_list; it has read:reconciliations read:exceptions (HTTP 403, insufficient_scope',
    );
  }, 120_000);
});
