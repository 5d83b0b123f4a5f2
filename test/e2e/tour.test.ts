/**
 * `npm start` (the tour) as a user runs it: the bundled dist/tour.cjs in its own process, with
 * a HOME of its own to show it leaves nothing in the user's svc directories.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, ROOT } from '../helpers/svc.js';
import { tempDir } from '../helpers/temp.js';

describe('npm start (the tour)', () => {
  it('runs every chapter against its own sandbox, in under 190 lines (five chapters), saying what each step shows, behind a proxy', async () => {
    const home = tempDir('svc-tour-home-');
    // A proxy that nothing answers on: the tour's traffic is all loopback, never proxied.
    const proxy = 'http://127.0.0.1:1';
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'tour.cjs')], {
      env: baseEnv({ NO_COLOR: '1', HOME: home, HTTP_PROXY: proxy, http_proxy: proxy, HTTPS_PROXY: proxy }),
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
    expect(out).not.toContain('tour stopped');
    expect(out.trimEnd().split('\n').length, out).toBeLessThanOrEqual(190);
    // Output modes are named before they are shown.
    expect(out).toMatch(/On a terminal: a table[^\n]*\n\n\$ svc tenants ls\n {2}ID +SLUG +NAME/);
    expect(out).toMatch(
      /Piped output is tab-separated, for scripts[^\n]*\n\n\$ svc tenants ls --tier pro\n {2}5c59a2be-\S+\tacme-payments-eu\t/,
    );
    expect(out).toMatch(
      /--ndjson one object per line\.\n\n\$ svc tenants ls --tier pro --ndjson\n {2}\{"id":/,
    );
    expect(out).toContain('(exit 2, as expected)');
    // What it shows is what it runs: typed in this order, the steps work (no hidden setup step).
    expect(out).toMatch(
      /\$ svc config set base_url (http:\/\/127\.0\.0\.1:\d+)\n {2}✓ set base_url for profile "default" \(a new profile, now the active one\)\n\n\$ svc login --with-token < admin-token\.txt\n/,
    );
    expect(out).toMatch(/\$ svc config set client_id svc-cli\n {2}✓ set client_id[^\n]*\n\n\$ svc login\n/);
    expect(out).toMatch(/\$ svc login\n[^$]*✓ logged in to http:\/\/127\.0\.0\.1:\d+ as Ada Admin/);
    // A role's record on a terminal leaves out the empty fields (no blank "deleted").
    const role = /\$ svc roles create[^\n]*\n((?: {2}[^\n]*\n)+)/.exec(out)![1]!;
    expect(role).toContain('permissions  exception.read, exception.resolve.fx_difference');
    expect(role).not.toMatch(/deleted|description/);
    expect(out).toMatch(/expires +\S+ \(in 8 hours\)/);
    // On call: the cause in the table, the queue replayed to listen, the webhook put back, a capture verified.
    expect(out).toMatch(/dlq_\w+ +exception\.sla\.breached +- +connection_timeout +queued/);
    expect(out).toContain('✓ 2 replayed and delivered');
    expect(out).toMatch(
      /✓ webhook wh_\w+ is back: http:\/\/127\.0\.0\.1:9\/down, signing with the secret it had before this session/,
    );
    expect(out).toMatch(
      /\$ svc webhooks verify --secret-file whsec\.txt --header-file captured\/0001-dlv_[\w-]+\.headers[^\n]*\n {2}valid: /,
    );
    expect(out).toContain('svc sandbox start');
    // Every journal, config and cache of the tour is in its own temporary directory.
    const touched = ['.config/svc', '.local/state/svc', '.cache/svc'].filter((dir) =>
      existsSync(join(home, dir)),
    );
    rmSync(home, { recursive: true, force: true });
    expect(touched).toEqual([]);
  }, 120_000);

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'removes its temporary directory (with the credentials) on %s',
    async (signal) => {
      const home = tempDir('svc-tour-home-');
      const tmp = tempDir('svc-tour-tmp-');
      const child = spawn(process.execPath, [join(ROOT, 'dist', 'tour.cjs')], {
        env: baseEnv({ NO_COLOR: '1', HOME: home, TMPDIR: tmp }),
      });
      let out = '';
      const collect = (d: Buffer) => {
        out += d;
        if (out.includes('── 3.') && !child.killed) child.kill(signal);
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      const code = await new Promise((r) => child.on('close', r));
      const left = readdirSync(tmp);
      rmSync(home, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
      expect(code, out).toBe(130);
      expect(out).toMatch(/\ntour interrupted; its temporary files are removed\n$/);
      expect(left).toEqual([]);
    },
    60_000,
  );
});
