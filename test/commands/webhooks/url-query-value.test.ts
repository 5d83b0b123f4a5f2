import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as, LABS } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// attack25b M5: a key in a webhook URL's query under a name no rule knew (`?accesskey=`, `?k=`) was
// shown whole by --debug and the audit trail, and exported world-readable without a word.
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = useTempDir('svc-url-query-value-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = 'Zq8HxkVw3mPq9RtYb7LcNe2WfUa5JdKs';

describe('a webhook URL with a random-looking key under an unknown name', () => {
  it.each([
    ['accesskey', 'https://hooks.example.com/svc?accesskey=[redacted]&team=ops'],
    ['xyz', 'https://hooks.example.com/svc?xyz=[redacted]&team=ops'],
  ])('?%s=: masked in --debug and the audit trail; exported 0600 with a warning', async (name, masked) => {
    const url = `https://hooks.example.com/svc?${name}=${KEY}&team=ops`;
    const made = await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', {
      url,
      event_types: ['exception.created'],
    });
    try {
      const debug = await svc.run(['--debug', 'webhooks', 'get', made.id, '--tenant', 'acme-labs']);
      expect(debug.code, debug.stderr).toBe(0);
      expect(debug.stderr).toContain(masked);
      expect(debug.stderr).not.toContain(KEY);

      const audit = await svc.run(['--tenant', 'acme-labs', 'audit', 'ls', '--json']);
      expect(audit.code, audit.stderr).toBe(0);
      expect(audit.stdout).toContain(masked);
      expect(audit.stdout).not.toContain(KEY);

      const out = join(dir, `${name}.yaml`);
      const ex = await svc.run(['export', '--tenant', 'acme-labs', '--only', 'webhooks', '-o', out]);
      expect(ex.code, ex.stderr).toBe(0);
      expect(statSync(out).mode & 0o777).toBe(0o600);
      expect(ex.stderr).toContain(
        `warning: acme-labs: the URL of webhook ${made.id} (${masked}) carries a secret in it, and the file holds it as the platform has it: it is written 0600 (only you can read it); keep it private\n`,
      );
      expect(readFileSync(out, 'utf8')).toContain(url);
    } finally {
      await as(svc.sandbox(), LABS, 'DELETE', `/v1/webhooks/${made.id}`);
    }
  });
});
