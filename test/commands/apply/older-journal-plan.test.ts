import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { user, writeFile } from '../../helpers/ascode.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// attack23b F4: `svc apply PLAN.json` cut by an earlier svc (its journal names no caller), then the
// same command in this svc. The refusal said to remove the journal "and run the command again",
// which then refused the plan for the changes that earlier run made (exit 6, "run svc plan again"):
// a dead end after a step. For a saved plan it now says to plan again. The earlier svc's journal
// is this svc's own cut run's, rewritten as that svc wrote it (version 2, named by the command).
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-older-journal-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };

let interrupt: AbortController | undefined;
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: (method, path) => {
    if (interrupt && method === 'POST' && path === '/v1/roles') {
      interrupt.abort();
      interrupt = undefined;
    }
  },
});

const access = `version: 1
blocks:
  - tenants: acme-labs
    roles:
      - name: ojp-role
        permissions: [exception.read]
    grants:
      - users: [${user(1)}, ${user(2)}]
        role: ojp-role
        expires_in: 30d
        justification: older journal
`;

it("an earlier svc's journal of a saved plan's apply: the refusal says to plan again, not to run the same command", async () => {
  const state = join(dir, 'state');
  const env = { SVC_STATE_DIR: state, SVC_BASE_URL: proxy().url };
  const saved = join(dir, 'ojp.plan.json');
  const planned = await svc.run(['plan', '-f', writeFile(dir, 'ojp.yaml', access), '--out', saved], {
    ...real,
    env,
  });
  expect(planned.code, planned.stderr).toBe(10); // changes to make
  const argv = ['apply', saved, '--yes', '--concurrency', '1'];
  interrupt = new AbortController();
  const cut = await svc.run(argv, { ...real, env, signal: interrupt.signal });
  expect(cut.code, cut.stderr).toBe(130);
  const journals = join(state, 'journals');
  const [name] = readdirSync(journals).filter((f) => f.endsWith('.ndjson'));
  const journal = join(journals, name!);
  const [first, ...rest] = readFileSync(journal, 'utf8').split('\n');
  const { command, by: _by, operation: _op, ...header } = JSON.parse(first!);
  const legacy = join(journals, `apply-${command.slice(0, 16)}.ndjson`);
  writeFileSync(journal, [JSON.stringify({ ...header, journal: 2, operation: command }), ...rest].join('\n'));
  renameSync(journal, legacy);

  const r = await svc.run(argv, { ...real, env });
  expect([r.code, r.stdout]).toEqual([2, '']);
  expect(r.stderr).toBe(
    `error: journal ${legacy} holds a run of this command that an earlier svc started without recording who ran it, so svc cannot resume it as yours; see what it did with \`cat ${legacy}\`; to start a run of your own, remove it (\`rm ${legacy}\`) and run \`svc plan -f ${join(dir, 'ojp.yaml')} --out ${saved}\` again and review the new plan: the earlier run may have applied part of this one\n`,
  );
  // Followed: the journal removed, a new plan saved and applied, what the earlier run left is made.
  rmSync(legacy);
  const again = join(dir, 'ojp-again.plan.json');
  const replanned = await svc.run(['plan', '-f', join(dir, 'ojp.yaml'), '--out', again], { ...real, env });
  expect(replanned.code, replanned.stderr).toBe(10);
  const applied = await svc.run(['apply', again, '--yes'], { ...real, env });
  expect(applied.code, applied.stderr).toBe(0);
});
