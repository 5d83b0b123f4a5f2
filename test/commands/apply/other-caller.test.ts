import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LABS, user, writeFile } from '../../helpers/ascode.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { adminGrant, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { timeless } from '../../helpers/webhooks.js';

// `svc apply` cut by Ctrl-C after its role was created, then the same command under another
// credential (another tenant admin): that run is not the resume of the first (s16 fix-journal).
// Before, it said "1 skipped" for the role the other caller's run made, taken from its journal.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-other-caller-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };

let interrupt: AbortController | undefined;
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: (method, path) => {
    if (interrupt && method === 'POST' && path.startsWith('/v1/users/')) {
      interrupt.abort();
      interrupt = undefined;
    }
  },
});

const access = (tag: string) => `version: 1
blocks:
  - tenants: acme-labs
    roles:
      - name: oc-${tag}
        permissions: [exception.read]
    grants:
      - users: [${user(1)}, ${user(2)}]
        role: oc-${tag}
        expires_in: 30d
        justification: other caller
`;

describe('svc apply under another credential', () => {
  it('is a new run of its own, naming the unfinished run of the first caller, which keeps its journal', async () => {
    const sandbox = svc.sandbox();
    await adminGrant(sandbox, LABS, user(20), 'tenant_admin');
    const other = sandbox.issueToken(user(20), { expiresInSeconds: 86_400 }).token;
    const file = writeFile(dir, 'oc.yaml', access('a'));
    const state = join(dir, 'state');
    const argv = ['apply', '-f', file, '--yes', '--concurrency', '1'];
    const env = { SVC_STATE_DIR: state, SVC_BASE_URL: proxy().url };
    interrupt = new AbortController();
    const cut = await svc.run(argv, { ...real, env, signal: interrupt.signal });
    expect(cut.code, cut.stderr).toBe(130);
    const [name] = readdirSync(join(state, 'journals')).filter((f) => f.endsWith('.ndjson'));
    const journal = join(state, 'journals', name!);

    const theirs = await svc.run(argv, { ...real, env: { ...env, SVC_TOKEN: other } });
    expect(theirs.code, theirs.stderr).toBe(0);
    const [note, summary] = timeless(theirs.stderr).split('\n');
    expect(note).toMatch(
      new RegExp(
        `^note: another caller's unfinished run of this command started at \\S+ by usr_admin, profile "default", SVC_TOKEN is in ${journal.replaceAll('/', '\\/')};`,
      ),
    );
    // Its own plan, from what the platform holds: the role and the grant the cut run made are there
    // (no change, not counted as this run's), the other grant is this run's.
    expect(summary).toBe('✓ 1 applied (T)');
    expect(existsSync(journal)).toBe(true);
  });
});
