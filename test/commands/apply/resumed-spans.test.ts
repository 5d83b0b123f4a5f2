import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { user, writeFile } from '../../helpers/ascode.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { advanceClock, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// attack22 F4, svc apply -f: a resumed run goes on with its kept plan, whose expires_in counted
// from its first start, so a 1 h grant made 40 minutes later lasts 20 minutes. Its first line says
// which run it resumes and that (it said neither). The platform's clock moves; this machine's is real.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-spans-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let grants = 0;
/** The first run's second grant is refused (a failed row: exit 7, the journal kept). */
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  refuse: (method, path) =>
    method === 'POST' && /^\/v1\/users\/[^/]+\/roles$/.test(path) && ++grants === 2
      ? refusal(422, 'validation_error', 'refused once by the test proxy')
      : undefined,
});
const real = { clock: { now: () => Date.now() } };

describe('svc apply -f resumed 40 minutes later', () => {
  it('says which run it resumes and that the grants it still makes end 40 min sooner', async () => {
    const entries = [3, 4]
      .map(
        (n) =>
          `      - user: ${user(n)}\n        role: tenant_viewer\n        expires_in: 1h\n        justification: spans\n`,
      )
      .join('');
    const file = writeFile(
      dir,
      'spans.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n${entries}`,
    );
    const journal = join(dir, 'spans.journal');
    const argv = ['apply', '-f', file, '--yes', '--concurrency', '1', '--journal', journal];
    const env = { SVC_BASE_URL: proxy().url };
    const first = await svc.run(argv, { ...real, env });
    expect(first.code, first.stderr).toBe(7);

    await advanceClock(svc.sandbox(), 2400);
    const again = await svc.run(argv, { ...real, env });
    expect(again.code, again.stderr).toBe(0);
    const [said] = again.stderr.split('\n');
    expect(said).toMatch(
      new RegExp(
        `^taking up the failures of the run started at \\S+ \\(it finished at \\S+\\): 1 done, 1 to do \\(journal ${journal}\\); the grants still to make count expires_in from that start \\(\\S+ on the platform's clock, 40 min ago\\), so each ends 40 min sooner than its span from now; for the full span, remove the journal ${journal} and run the command again$`,
      ),
    );
  });
});
