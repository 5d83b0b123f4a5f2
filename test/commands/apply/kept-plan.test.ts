import { chownSync, existsSync, lchownSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type PlanDocument, planDigest } from '../../../src/ascode/plan.js';
import { as, LABS, user, writeFile } from '../../helpers/ascode.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// attack17 A7 and A2: `svc apply --journal PATH` keeps its plan in PATH.plan.json. A resumed run
// read back whatever plan was there (a digest anyone can compute anew): another local user who
// could write the journal's directory rewrote it and the victim's "same command again" granted
// them tenant_admin. And the plan was written by following whatever was at that name: another
// user's file received it (webhook URL tokens), a link made svc overwrite the victim's own file.
// Now the plan is written as the config store writes (a new file renamed into place, never
// through a link), another user's file there is refused, and the journal records the plan's
// sha256: a resumed run applies only the bytes svc wrote for it.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-kept-plan-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };
const root = typeof process.getuid === 'function' && process.getuid() === 0;

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

/** A role and a grant of it: the role first, the grant after it. */
const access = (tag: string, n: number) => `version: 1
blocks:
  - tenants: acme-labs
    roles:
      - name: kp-${tag}
        permissions: [exception.read]
    grants:
      - users: [${user(n)}]
        role: kp-${tag}
        expires_in: 30d
        justification: kept plan test
`;

const grantsOf = async (who: string): Promise<string[]> =>
  (await as(svc.sandbox(), LABS, 'GET', `/v1/role-assignments?user_id=${who}`)).items.map(
    (a: { role_id: string }) => a.role_id,
  );

describe('the plan svc apply keeps beside its journal', () => {
  it('is resumed only as svc wrote it: one rewritten (its digest computed anew) is refused, exit 2, nothing applied', async () => {
    const file = writeFile(dir, 'a7.yaml', access('a7', 1));
    const journal = join(dir, 'a7.ndjson');
    const kept = `${journal}.plan.json`;
    const argv = ['apply', '-f', file, '--journal', journal, '--yes'];
    const env = { SVC_BASE_URL: proxy().url };
    const controller = new AbortController();
    interrupt = { path: '/v1/roles', controller };
    const cut = await svc.run(argv, { ...real, env, signal: controller.signal });
    expect(cut.code, cut.stderr).toBe(130);
    // Another user adds a grant of tenant_admin to their own account, and computes the digest again.
    const doc = JSON.parse(readFileSync(kept, 'utf8')) as PlanDocument;
    const tenant = doc.tenants[0]!;
    const grant = structuredClone(tenant.changes.find((c) => c.kind === 'grant')!);
    const attacker = user(9);
    Object.assign(grant, { name: `${attacker} tenant_admin` });
    Object.assign(grant.grant!, { user: attacker, role: 'tenant_admin', role_id: 'tenant_admin' });
    tenant.changes.push(grant);
    doc.summary.create += 1;
    doc.digest = planDigest(doc);
    writeFileSync(kept, JSON.stringify(doc));

    const again = await svc.run(argv, { ...real, env });
    expect(again).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `error: the plan kept beside journal ${journal}, ${kept}, is not what svc wrote there for this run, so svc will not apply it; ` +
        `if you did not change it, someone else did; to plan anew from your file, remove both (\`rm ${journal} ${kept}\`) and run the command again; nothing was applied\n`,
    });
    expect(await grantsOf(attacker)).toEqual([]);
    expect(await grantsOf(user(1))).toEqual([]);
    expect([existsSync(journal), existsSync(kept)]).toEqual([true, true]);
  });

  it('replaces a link at its name, never writing through it: the file it points to is untouched', async () => {
    const file = writeFile(dir, 'a2-link.yaml', access('a2link', 2));
    const journal = join(dir, 'a2-link.ndjson');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'important data\n', { mode: 0o600 });
    symlinkSync(victim, `${journal}.plan.json`);
    const r = await svc.run(['apply', '-f', file, '--journal', journal, '--yes'], { ...real });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('important data\n');
    expect((await grantsOf(user(2))).length).toBe(1);
    expect(existsSync(`${journal}.plan.json`)).toBe(false);
  });

  it.skipIf(!root)('refuses a file another user put at its name, exit 2, and applies nothing', async () => {
    const file = writeFile(dir, 'a2-other.yaml', access('a2other', 3));
    const journal = join(dir, 'a2-other.ndjson');
    const kept = `${journal}.plan.json`;
    writeFileSync(kept, '', { mode: 0o666 });
    chownSync(kept, 65534, 65534);
    const r = await svc.run(['apply', '-f', file, '--journal', journal, '--yes'], { ...real });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `error: the plan kept beside journal ${journal}, ${kept}, is a file that belongs to another user (uid 65534), so svc will not write or read it; ` +
        `see what it holds with \`cat ${kept}\`; if you did not put it there, remove it (\`rm ${kept}\`) and run the command again; svc changed nothing\n`,
    });
    expect(readFileSync(kept, 'utf8')).toBe('');
    expect(await grantsOf(user(3))).toEqual([]);
  });

  // review17b R17b-2: the journal itself was appended to through such a link (into the user's own
  // empty file), and the run that made its change then exited 1 "this is a bug in svc".
  it.skipIf(!root)(
    "refuses another user's link where the journal goes, exit 2: nothing applied, nothing written through it",
    async () => {
      const file = writeFile(dir, 'r2-link.yaml', access('r2link', 4));
      const journal = join(dir, 'r2-link.ndjson');
      const victim = join(dir, 'victim-empty.log');
      writeFileSync(victim, '');
      symlinkSync(victim, journal);
      lchownSync(journal, 65534, 65534);
      const r = await svc.run(['apply', '-f', file, '--journal', journal, '--yes'], { ...real });
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr:
          `error: journal ${journal} is a symbolic link another user (uid 65534) made, so svc will not resume it; ` +
          `see where it points with \`ls -l ${journal}\`; if you did not put it there, remove it (\`rm ${journal}\`) and run the command again; svc changed nothing\n`,
      });
      expect(readFileSync(victim, 'utf8')).toBe('');
      expect(await grantsOf(user(4))).toEqual([]);
    },
  );
});
