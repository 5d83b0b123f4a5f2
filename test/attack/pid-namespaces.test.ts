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
import { afterEach, expect, it } from 'vitest';
import { runProcess } from '../../src/system/run.js';
import { assignments, bulkUser, customRole } from '../helpers/bulk.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { BIN, baseEnv, ROOT, sandboxEnv } from '../helpers/svc.js';

/** The unshare that gives a process a PID namespace of its own (and svc PID 1 in it), if any works here. */
const unshare = [
  ['-p', '-f', '--mount-proc'],
  ['-r', '-p', '-f', '--mount-proc'],
].find((flags) => spawnSync('unshare', [...flags, 'true']).status === 0);
if (!unshare) console.warn('skipped: two runs in two PID namespaces: unshare -p (or -r -p) cannot run here');

/**
 * Rows enough that the first run outlasts the second's start and watch however slow a loaded
 * machine makes them (CI saw a second start 5 s late and find the first done): the latency is
 * dropped once the second has answered, and the first's remaining rows go at once.
 */
const ROWS = 12;
const sandbox = useSandbox({ users: ROWS });
const env = sandboxEnv(sandbox);
const faults = (latency_ms: number) => call(sandbox(), 'PUT', '/_sandbox/faults', { body: { latency_ms } });
afterEach(() => faults(0));

/** svc as PID 1 of a PID namespace of its own: what a container runs. */
const contained = (args: string[]) =>
  runProcess('unshare', [...unshare!, process.execPath, BIN, ...args], {
    env: baseEnv(env),
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
    // Each grant held 4 s (48 s in all): the first run is still working when the second has watched its lock (11 s).
    await faults(4000);
    const first = contained(argv);
    const journals = join(env.SVC_STATE_DIR!, 'journals');
    while (!(existsSync(journals) && readdirSync(journals).some((name) => name.endsWith('.lock'))))
      await sleep(50);

    const second = await contained(argv);
    await faults(0);
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
    // Each grant held 1.5 s (18 s in all) until the second has answered (the script marks it).
    await faults(1500);
    const answered = join(env.SVC_STATE_DIR!, '..', 'second-answered');
    const script = `
    "$0" "$1" roles assign --file "$2" --concurrency 1 >/dev/null 2>&1 & first=$!
    until ls "$3"/roles-assign-*.lock >/dev/null 2>&1; do sleep 0.05; done
    "$0" "$1" roles assign --file "$2" --concurrency 1; echo "second=$?"; : > "$4"
    wait $first; echo "first=$?"`;
    const flags = unshare!.filter((flag) => flag !== '--mount-proc');
    const running = runProcess(
      'unshare',
      [...flags, 'bash', '-c', script, process.execPath, BIN, file, journals, answered],
      {
        env: baseEnv(env),
        cwd: ROOT,
        timeoutMs: 60_000,
      },
    );
    while (!existsSync(answered)) await sleep(50);
    await faults(0);
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
