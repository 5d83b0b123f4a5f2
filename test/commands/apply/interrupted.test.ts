import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile } from '../../helpers/ascode.js';
import { afterResuming, lastJson } from '../../helpers/bulk.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { timeless } from '../../helpers/webhooks.js';

// `svc apply` interrupted (Ctrl-C, SIGTERM, SIGHUP: one signal) while the role its grants need is
// being created (review s14 crash14 #3): the grants, webhook and client wait at the phase barrier
// and are never started. The run says so — "interrupted", the changes not started counted, exit
// 130 — and keeps its journal, so the same command resumes it; never "✓ 1 applied", exit 0.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-interrupted-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };

/** Ctrl-C, pressed while the request of `path` is on its way to the platform (once). */
let interrupt: { path: string; controller: AbortController } | undefined;
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: (method, path) => {
    if (interrupt && method === 'POST' && path === interrupt.path) {
      interrupt.controller.abort();
      interrupt = undefined;
    }
  },
});

/** A role, two grants of it, a webhook and an OAuth client: the role first, the rest after it. */
const access = (tag: string) => `version: 1
blocks:
  - tenants: acme-labs
    roles:
      - name: cd-${tag}
        permissions: [exception.read]
    grants:
      - users: [${user(1)}, ${user(2)}]
        role: cd-${tag}
        expires_in: 30d
        justification: crash test rota
    webhooks:
      - url: https://hooks.example.com/${tag}
        event_types: [exception.sla.breached]
    oauth_clients:
      - name: cp-${tag}
        redirect_uris: [https://portal.example.com/callback]
        scopes: [read:reconciliations]
        grant_types: [authorization_code, refresh_token]
`;

const roleId = async (name: string): Promise<string> =>
  (await as(svc.sandbox(), LABS, 'GET', '/v1/roles')).items.find((r: { name: string }) => r.name === name).id;

describe('svc apply, interrupted', () => {
  it.each([
    ['human', [] as string[]],
    ['json', ['--json']],
  ])(
    'while its role is created (%s): exit 130, the 4 changes not started counted, the journal kept; the same command resumes',
    async (mode, flags) => {
      const tag = `int-${mode}`;
      const file = writeFile(dir, `${tag}.yaml`, access(tag));
      const state = join(dir, `state-${tag}`);
      const secrets = join(dir, `secrets-${tag}`);
      const argv = ['apply', '-f', file, '--secret-dir', secrets, '--yes', ...flags];
      const env = { SVC_STATE_DIR: state, SVC_BASE_URL: proxy().url };
      const controller = new AbortController();
      interrupt = { path: '/v1/roles', controller };
      const cut = await svc.run(argv, { ...real, env, signal: controller.signal });
      const id = await roleId(`cd-${tag}`);
      const journals = readdirSync(join(state, 'journals')).filter((f) => f.endsWith('.ndjson'));
      const journal = join(state, 'journals', journals[0] ?? '(removed)');
      const hint = `run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal ${journal})`;
      if (mode === 'human') {
        expect([cut.code, cut.stdout, timeless(cut.stderr)]).toEqual([
          130,
          `5\tacme-labs\trole\tcreate\tcd-${tag}\tok\t${id}\t\n`,
          // Said at the stop: the role's creation on the wire is let finish (attack21 F5).
          `stopping: 1 request in flight; interrupt again to stop now\n1 applied, 4 not started (T)\nerror: interrupted after 1 of 5; ${hint}\n`,
        ]);
      } else {
        expect([cut.code, JSON.parse(cut.stdout), lastJson(cut.stderr)]).toEqual([
          130,
          [
            {
              line: 5,
              tenant: 'acme-labs',
              kind: 'role',
              action: 'create',
              name: `cd-${tag}`,
              status: 'ok',
              id,
            },
          ],
          { error: { code: 'interrupted', exit_code: 130, message: 'interrupted after 1 of 5', hint } },
        ]);
        // Every line before the JSON error, exactly (review26b L2): the counts, no stop notice.
        const before = cut.stderr.trimEnd().split('\n').slice(0, -1);
        expect(timeless(`${before.join('\n')}\n`)).toBe('1 applied, 4 not started (T)\n');
      }
      expect(journals).toHaveLength(1);
      // Nothing after the role was sent; the same command resumes the run and makes the rest.
      const held = async () =>
        (await as(svc.sandbox(), LABS, 'GET', `/v1/role-assignments?role_id=${id}`)).items.length;
      expect(await held()).toBe(0);
      const rest = await svc.run(argv, { ...real, env });
      expect(rest.code, rest.stderr).toBe(0);
      // A resumed run says so first, in every mode (attack26a F11).
      expect(timeless(afterResuming(rest.stderr))).toBe('✓ 4 applied, 1 skipped (T)\n');
      expect(await held()).toBe(2);
      expect(readdirSync(join(state, 'journals')).filter((f) => f.endsWith('.ndjson'))).toEqual([]);
    },
  );
});
