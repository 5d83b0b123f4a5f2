/**
 * attack21 F10: two containers sharing a state directory (one host name, a PID namespace each, svc
 * PID 1 in both) ran one journal at once: the second took the live run's lock as a dead one's
 * (its pid not there, or its own) and resumed the first's journal while it ran, "✓ 12 granted" and
 * "✓ 9 granted, 3 skipped" for 12 grants. Spawned under `unshare -p -f --mount-proc` (with `-r`,
 * a user namespace, where the user may not make a PID namespace otherwise): the lock of another
 * namespace is judged by its refreshes, not by a pid (src/bulk/lock.ts). Skipped, with one line
 * said, where neither can run (no unshare, user namespaces disabled).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { runProcess } from '../../src/system/run.js';
import { assignments, bulkUser, customRole } from '../helpers/bulk.js';
import { useHeldRequests } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { BIN, baseEnv, ROOT, sandboxEnv } from '../helpers/svc.js';

/** The unshare that gives a process a PID namespace of its own (and svc PID 1 in it), if any works here. */
const unshare = [
  ['-p', '-f', '--mount-proc'],
  ['-r', '-p', '-f', '--mount-proc'],
].find((flags) => spawnSync('unshare', [...flags, 'true']).status === 0);
if (!unshare) console.warn('skipped: two runs in two PID namespaces: unshare -p (or -r -p) cannot run here');

const ROWS = 12;
const sandbox = useSandbox({ users: ROWS });
/**
 * The first run's grants are held at a proxy until the second run has answered, so the first is
 * still running however late a loaded machine starts the second (CI, s21: a second run started 5 s
 * late found a first slowed by latency alone already done, and ran itself). Its timeout outlasts
 * any hold.
 */
const grants = useHeldRequests(sandbox, (method, path) => method === 'POST' && path.endsWith('/roles'));
const env = sandboxEnv(sandbox);
const viaProxy = () => ({ ...env, SVC_BASE_URL: grants.url(), SVC_TIMEOUT: '600' });

/** svc as PID 1 of a PID namespace of its own: what a container runs. */
const contained = (args: string[]) =>
  runProcess('unshare', [...unshare!, process.execPath, BIN, ...args], {
    env: baseEnv(viaProxy()),
    cwd: ROOT,
    timeoutMs: 60_000,
  });

/** A grants file of ROWS rows of a new custom role `name`, and the role's id. */
async function grantsFile(name: string): Promise<{ id: string; file: string }> {
  const id = await customRole(sandbox(), name);
  const rows = Array.from({ length: ROWS }, (_, i) => `${bulkUser(i + 1)},${name},1h,${name}`);
  const file = join(env.SVC_STATE_DIR!, '..', `${name}.csv`);
  writeFileSync(file, `user,role,expires_in,justification\n${rows.join('\n')}\n`);
  return { id, file };
}

it.skipIf(!unshare)(
  'a run in another PID namespace is refused while the first runs, and the grants are counted once',
  async () => {
    const { id, file } = await grantsFile('pidns');
    const argv = ['roles', 'assign', '--file', file, '--concurrency', '1'];
    // The first run's first grant is held until the second has watched its lock (11 s) and answered.
    const held = grants.hold();
    const first = contained(argv);
    const journals = join(env.SVC_STATE_DIR!, 'journals');
    await Promise.race([
      held.arrived,
      first.then((r) => Promise.reject(new Error(`first run ended: ${r.stderr}`))),
    ]);
    // Its own lock, and the one an svc before session 16 would look at for this command (attack23b F1).
    expect(readdirSync(journals).filter((name) => name.endsWith('.lock'))).toHaveLength(2);

    const second = await contained(argv);
    held.release();
    expect(second.code, second.stderr).toBe(6);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(
      new RegExp(
        `^waiting 11 s to see whether the run holding ${journals}/roles-assign-[0-9a-f]{16}\\.ndjson\\.lock is alive\\nerror: another svc roles assign of the same input is running \\(pid 1 in another PID namespace \\(another container\\), since \\S+\\); nothing was done; wait for it to finish; its run refreshed it while svc watched it for 11 s; if no svc is running there, remove ${journals}/roles-assign-[0-9a-f]{16}\\.ndjson\\.lock\\n$`,
      ),
    );

    const done = await first;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(new RegExp(`✓ ${ROWS} granted in `));
    expect(await assignments(sandbox(), id)).toEqual({
      total: ROWS,
      active: ROWS,
      users: ROWS,
      duplicates: 0,
    });
    expect(readdirSync(journals)).toEqual([]);
  },
  90_000,
);

it.skipIf(!unshare)(
  'two runs in one PID namespace whose /proc is another namespace’s: judged by the pid alone, the second refused',
  async () => {
    // `unshare -p -f` without --mount-proc: /proc/N is the parent namespace's process N, not the
    // one kill(N) reaches; a start read there would call the live holder another program.
    const { id, file } = await grantsFile('pidns-proc');
    const journals = join(env.SVC_STATE_DIR!, 'journals');
    // The first run's first grant is held until the second has answered (the script marks it).
    const held = grants.hold();
    const answered = join(env.SVC_STATE_DIR!, '..', 'second-answered');
    // A first run that ends before its lock (refused, crashed) ends the script, saying why.
    const script = `
    "$0" "$1" roles assign --file "$2" --concurrency 1 >/dev/null 2>"$4.first" & first=$!
    until ls "$3"/roles-assign-*.lock >/dev/null 2>&1; do
      kill -0 $first 2>/dev/null || { wait $first; echo "the first run ended before its lock, exit $?: $(cat "$4.first")" >&2; exit 1; }
      sleep 0.05
    done
    "$0" "$1" roles assign --file "$2" --concurrency 1; echo "second=$?"; : > "$4"
    wait $first; echo "first=$?"`;
    const flags = unshare!.filter((flag) => flag !== '--mount-proc');
    const running = runProcess(
      'unshare',
      [...flags, 'bash', '-c', script, process.execPath, BIN, file, journals, answered],
      {
        env: baseEnv(viaProxy()),
        cwd: ROOT,
        timeoutMs: 60_000,
      },
    );
    // review22a F6: each wait also watches the script's end, so a run that died early fails the
    // test at once with its words, not at the 90 s timeout with none.
    let over = false;
    const ended = running.then((r) => {
      over = true;
      throw new Error(`the script ended early (exit ${r.code}): ${r.stdout}${r.stderr}`);
    });
    await Promise.race([held.arrived, ended]);
    while (!existsSync(answered) && !over) await sleep(50);
    if (!existsSync(answered)) await ended;
    held.release();
    const both = await running;
    expect(both.stdout).toBe('second=6\nfirst=0\n');
    expect(both.stderr).toMatch(
      /^error: another svc roles assign of the same input is running \(pid \d+, since \S+\); nothing was done; wait for it to finish, then run the command again to pick up what is left \(journal \S+\); if pid \d+ is not svc, remove \S+\.lock\n$/,
    );
    expect(await assignments(sandbox(), id)).toEqual({
      total: ROWS,
      active: ROWS,
      users: ROWS,
      duplicates: 0,
    });
  },
  90_000,
);
