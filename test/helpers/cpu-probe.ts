/**
 * Opt-in per-file CPU probe (issue 12): `SVC_CPU_PROBE=/tmp/cpu.jsonl CI=true npx vitest run …`
 * appends one JSON line per test file: the worker's user + system CPU while the file was
 * collected and run (`self`, from /proc/self/stat, in seconds), that of the processes it waited
 * for (`children`), how many sandboxes (fastify instances) it built and how many processes it
 * spawned (child_process, async and sync). vitest.config.ts loads this file only when
 * SVC_CPU_PROBE is set; `node scripts/cpu-probe-summary.mjs /tmp/cpu.jsonl` ranks the lines.
 * Wall time on the shared 2-core machine says little; CPU time per file does.
 */
import childProcess from 'node:child_process';
import { channel } from 'node:diagnostics_channel';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { syncBuiltinESMExports } from 'node:module';
import { basename, join, relative } from 'node:path';
import { afterAll } from 'vitest';

const TICKS = 100; // getconf CLK_TCK on Linux

function cpu(): { self: number; children: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14–17 of proc(5) (utime stime cutime cstime), 12–15 after pid and comm.
  const [utime = 0, stime = 0, cutime = 0, cstime = 0] = fields.slice(11, 15).map(Number);
  return { self: (utime + stime) / TICKS, children: (cutime + cstime) / TICKS };
}

interface Counts {
  sandboxes: number;
  spawns: number;
}

const slot = globalThis as { __svcCpuProbe?: Counts };
if (!slot.__svcCpuProbe) {
  const counts: Counts = { sandboxes: 0, spawns: 0 };
  slot.__svcCpuProbe = counts;
  channel('fastify.initialization').subscribe(() => {
    counts.sandboxes += 1;
  });
  const proto = childProcess.ChildProcess.prototype as unknown as { spawn: (...a: unknown[]) => unknown };
  const spawn = proto.spawn;
  proto.spawn = function (this: unknown, ...args: unknown[]) {
    counts.spawns += 1;
    return spawn.apply(this, args);
  };
  const cp = childProcess as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of ['spawnSync', 'execSync', 'execFileSync']) {
    const original = cp[name] as (...a: unknown[]) => unknown;
    // Each calls the module's own spawnSync, not this export: one count per call.
    cp[name] = (...args: unknown[]) => {
      counts.spawns += 1;
      return original(...args);
    };
  }
  syncBuiltinESMExports();
}

const counts = slot.__svcCpuProbe;
const out = process.env.SVC_CPU_PROBE;
const start = cpu();

// SVC_CPU_PROFILE=<dir> as well: a V8 CPU profile of each test file (open it in Chrome's DevTools).
const profileDir = process.env.SVC_CPU_PROFILE;
const session = profileDir ? new Session() : undefined;
if (session) {
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
}
const startCounts = { ...counts };

// biome-ignore lint/correctness/noEmptyPattern: vitest requires a destructuring first argument
afterAll(({}, suite) => {
  const file = 'file' in suite && suite.file ? suite.file.filepath : suite.name;
  if (session && profileDir)
    session.post('Profiler.stop', (error, result) => {
      if (!error)
        writeFileSync(join(profileDir, `${basename(file)}.cpuprofile`), JSON.stringify(result.profile));
      session.disconnect();
    });
  if (!out) return;
  const end = cpu();
  const line = {
    file: relative(process.cwd(), file),
    self: +(end.self - start.self).toFixed(2),
    children: +(end.children - start.children).toFixed(2),
    sandboxes: counts.sandboxes - startCounts.sandboxes,
    spawns: counts.spawns - startCounts.spawns,
  };
  appendFileSync(out, `${JSON.stringify(line)}\n`);
});
