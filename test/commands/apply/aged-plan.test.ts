import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { user, writeFile, writes } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// A plan applied later than it was computed whose expiries have passed on the platform's clock
// (a saved plan reviewed on Friday and applied on Monday; a run interrupted, resumed a night
// later, its expires_in counted from the interrupted start): its grants cannot be made, and would
// fail again on every re-run. It is refused whole before anything is sent (exit 6), like drift.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-aged-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';

// The first run's grant of user 3 (or refuseUser) is refused once (exit 7, its journal kept to resume).
let refuseOnce = false;
let refuseUser = user(3);
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  refuse: (method, path) => {
    if (!refuseOnce || method !== 'POST' || path !== `/v1/users/${refuseUser}/roles`) return undefined;
    refuseOnce = false;
    return refusal(503, 'unavailable');
  },
});

const twoHoursLater = async () => {
  const r = await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 7200 } });
  expect(r.status).toBe(200);
};
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('svc apply of a plan whose expiries have passed', () => {
  it('a saved plan: refused whole, exit 6, nothing sent', async () => {
    const file = writeFile(
      dir,
      'saved.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - { name: night-desk, permissions: [exception.read] }\n    grants:\n      - { user: ${user(1)}, role: night-desk, justification: permanent one }\n      - { user: ${user(2)}, role: night-desk, expires_in: 1h, justification: short one }\n`,
    );
    const plan = join(dir, 'saved.plan.json');
    expect((await svc.run(['plan', '-f', file, '--out', plan], real)).code).toBe(10);
    await twoHoursLater();
    const before = await writes(svc.sandbox());
    const r = await svc.run(['apply', plan, '--yes'], real);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-2)).toMatch(
      new RegExp(`^acme-labs: grant night-desk to ${user(2)} \\(expires_at ${TIME}\\)$`),
    );
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^error: ${literal(plan)} has aged out: 1 of its grants would end at or before the platform's time now, ${TIME} \\(each on a line above\\); nothing was applied; run \`svc plan -f ${literal(file)} --out ${literal(plan)}\` again and review the new plan$`,
      ),
    );
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('a re-run (-f) of a finished run whose expires_in counted from a start long gone: refused, exit 6, nothing sent, the run said finished, the way out named', async () => {
    const state = join(dir, 'state-resumed');
    const env = { SVC_BASE_URL: proxy().url, SVC_STATE_DIR: state, SVC_MAX_RETRIES: '0' };
    const file = writeFile(
      dir,
      'resumed.yaml',
      `version: 1\nblocks:\n  - tenants: acme-apac\n    grants:\n      - users: [${user(3)}, ${user(4)}]\n        role: tenant_viewer\n        expires_in: 1h\n        justification: short rota\n`,
    );
    refuseOnce = true;
    const first = await svc.run(['apply', '-f', file, '--yes', '--ndjson'], { ...real, env });
    expect(first.code, first.stderr).toBe(7);
    expect(
      ndjson(first.stdout)
        .map((row) => `${row.name} ${row.status}`)
        .sort(),
    ).toEqual([`${user(3)} tenant_viewer failed`, `${user(4)} tenant_viewer ok`]);
    const [journal] = readdirSync(join(state, 'journals')).filter((f) => f.endsWith('.ndjson'));
    await twoHoursLater();
    const before = await writes(svc.sandbox());
    const r = await svc.run(['apply', '-f', file, '--yes'], { ...real, env });
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      new RegExp(
        `^error: the plan of the run of ${literal(file)} that finished at ${TIME} with failures \\(its journal kept to re-run them\\) has aged out: 1 of its grants would end at or before the platform's time now, ${TIME} \\(each on a line above\\); nothing was applied; remove its journal \\(${literal(join(state, 'journals', journal!))}\\) and run svc apply again to plan anew$`,
      ),
    );
    expect(await writes(svc.sandbox())).toBe(before);
    // Only the grant not yet made is listed: the one the earlier run made is not this run's.
    expect(r.stderr).toContain(`grant tenant_viewer to ${user(3)}`);
    expect(r.stderr).not.toContain(user(4));
  });

  // review22a F4: a journal without its finished line (the disk was full at the run's end; an
  // earlier svc; a kill) does not say how its run ended: never called "the interrupted run".
  it('a re-run of a run whose journal does not say how it ended: "the plan of the earlier run", not "interrupted"', async () => {
    const state = join(dir, 'state-unsaid');
    const env = { SVC_BASE_URL: proxy().url, SVC_STATE_DIR: state, SVC_MAX_RETRIES: '0' };
    const file = writeFile(
      dir,
      'unsaid.yaml',
      `version: 1\nblocks:\n  - tenants: acme-apac\n    grants:\n      - users: [${user(5)}, ${user(6)}]\n        role: tenant_viewer\n        expires_in: 1h\n        justification: short rota\n`,
    );
    refuseOnce = true;
    refuseUser = user(5);
    const first = await svc.run(['apply', '-f', file, '--yes', '--ndjson'], { ...real, env });
    expect(first.code, first.stderr).toBe(7);
    const [name] = readdirSync(join(state, 'journals')).filter((f) => f.endsWith('.ndjson'));
    const journal = join(state, 'journals', name!);
    // As a full disk at its end leaves it: every line but the finished one.
    const lines = readFileSync(journal, 'utf8').split('\n');
    expect(lines.filter((l) => l.startsWith('{"finished":'))).toHaveLength(1);
    writeFileSync(journal, lines.filter((l) => !l.startsWith('{"finished":')).join('\n'));
    await twoHoursLater();
    const r = await svc.run(['apply', '-f', file, '--yes'], { ...real, env });
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      new RegExp(
        `^error: the plan of the earlier run of ${literal(file)} has aged out: 1 of its grants would end at or before the platform's time now, ${TIME} \\(each on a line above\\); nothing was applied; remove its journal \\(${literal(journal)}\\) and run svc apply again to plan anew$`,
      ),
    );
  });
});
