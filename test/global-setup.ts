/**
 * Once per vitest run, in vitest's main process, before any test file:
 *
 * 1. Nothing outside temporary directories. HOME points at a temporary directory for the whole
 *    run (workers and every process they spawn inherit it) and the XDG base directories are
 *    cleared, so a test that forgets SVC_CONFIG_DIR, SVC_STATE_DIR or SVC_CACHE_DIR cannot reach
 *    the user's ~/.config/svc, ~/.local/state/svc or ~/.cache/svc. Teardown fails the run when
 *    svc's default directories under that HOME were written (a test relied on them) or when this
 *    build's code cache appeared in the user's real ~/.cache/svc. (The user's directories are not
 *    compared as a whole: on a shared machine other svc processes write there during a run.)
 * 2. dist/ is built only when a test file of this run spawns bin/svc.js (npm test always has
 *    some; `npx vitest run test/commands` has none and starts at once).
 * 3. One private code-cache directory (SVC_CACHE_DIR) for every svc process the tests spawn.
 * 4. Nothing left in TMPDIR: teardown counts the `svc-*` entries made there since the run started
 *    and still there (test/helpers/temp.ts makes and removes them), and prints one line naming
 *    their prefixes. Under CI=true more than LEFT_BOUND of them fail the run, unless another run
 *    of the suite was under way at the same time (its own `svc-test-home-*` is there): its
 *    directories cannot be told from this run's. A killed run's directories are not counted by
 *    the next (made before it started).
 */
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { buildDist } from '../scripts/build.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** SVC_CACHE_DIR for every svc process a test starts (test/helpers/svc.ts baseEnv). */
    svcCacheDir: string;
  }
}

/**
 * A test file that spawns the built binary (directly, or through a helper that does): it imports
 * svc, bash, BIN or baseEnv from helpers/svc.js (not just ROOT, sandboxEnv or tempConfigDir).
 */
const SPAWNS =
  /import \{[^}]*\b(svc|bash|BIN|baseEnv)\b[^}]*\} from '(\.\.\/)+helpers\/svc\.js'|helpers\/(background|terminal)\.js'|\bspawnSvc\(|dist\/\w+\.cjs/;

function spawnsTheBinary(files: string[]): boolean {
  return files.some((file) => SPAWNS.test(readFileSync(file, 'utf8')));
}

/** svc's default directories under `home` when no SVC_* or XDG_* variable says otherwise. */
function defaultDirs(home: string): string[] {
  return [join(home, '.config', 'svc'), join(home, '.local', 'state', 'svc'), join(home, '.cache', 'svc')];
}

/** Where the launcher would keep this build's code caches with the user's own settings. */
function userCacheOfThisBuild(): string | undefined {
  const bundle = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
  if (!existsSync(bundle)) return undefined;
  const stat = statSync(bundle);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(
    base,
    'svc',
    'svc-code-cache',
    `v8-${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}`,
  );
}

/** More than this many of a run's own directories left in TMPDIR fail it under CI=true. */
const LEFT_BOUND = 10;
const HOME_PREFIX = 'svc-test-home-';

/** The `svc-*` entries in `dir` made at or after `sinceMs` (creation time; ctime without one). */
function madeSince(dir: string, sinceMs: number): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => {
    if (!name.startsWith('svc-')) return false;
    try {
      const stat = lstatSync(join(dir, name));
      return (stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.ctimeMs) >= sinceMs;
    } catch {
      return false;
    }
  });
}

/** `svc-bulk-cmd-AbC123` → `svc-bulk-cmd`: what mkdtemp added taken off. */
function prefixCounts(names: string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) {
    const prefix = name.replace(/[-_.][A-Za-z0-9]{6,}$/, '');
    counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([prefix, n]) => `${prefix}-* ${n}`)
    .join(', ');
}

/**
 * The run's leftovers in TMPDIR: one line when there are any; a problem under CI=true above the
 * bound when no other run was under way (another run's home directory is there now, or was at
 * the start).
 */
function leftovers(temp: string, startMs: number, home: string, othersAtStart: boolean): string[] {
  const left = madeSince(temp, startMs);
  if (left.length === 0) return [];
  const othersNow = readdirSync(temp).some(
    (name) => name.startsWith(HOME_PREFIX) && join(temp, name) !== home,
  );
  const alone = !othersAtStart && !othersNow;
  console.log(
    `${left.length} svc-* entries made in ${temp} during this run are still there${alone ? '' : ' (another test run was under way: some may be its own)'}: ${prefixCounts(left)}`,
  );
  if (process.env.CI !== 'true' || !alone || left.length <= LEFT_BOUND) return [];
  return [
    `${left.length} temporary directories left in ${temp} (more than ${LEFT_BOUND}): make them with tempDir()/useTempDir() (test/helpers/temp.ts)`,
  ];
}

export default async function setup(project: TestProject): Promise<() => void> {
  const spawning = spawnsTheBinary(project.vitest.state.getPaths());
  if (spawning) await buildDist({ quiet: true });
  // Named while HOME is still the user's.
  const forbiddenCache = userCacheOfThisBuild();
  const temp = tmpdir();
  // Made since the run started: mtime resolution and the clock's steps are not a concern here
  // (the bound is not exact; a few milliseconds either way change nothing).
  const startMs = Date.now() - 1;
  const othersAtStart = readdirSync(temp).some((name) => name.startsWith(HOME_PREFIX));
  const home = mkdtempSync(join(temp, HOME_PREFIX));
  process.env.HOME = home;
  for (const name of ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME']) {
    delete process.env[name];
  }
  const cacheDir = mkdtempSync(join(tmpdir(), 'svc-test-cache-'));
  project.provide('svcCacheDir', cacheDir);

  return () => {
    const written = defaultDirs(home).filter((dir) => existsSync(dir));
    const cacheLeak = forbiddenCache && existsSync(forbiddenCache) ? [forbiddenCache] : [];
    rmSync(cacheDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    const problems = [
      ...leftovers(temp, startMs, home, othersAtStart),
      ...written.map((dir) => `${dir} (a test used svc's default directory)`),
      ...cacheLeak.map((dir) => `${dir} (svc ran without SVC_CACHE_DIR and the user's HOME)`),
    ];
    if (problems.length > 0) {
      // vitest reports an error thrown here but still exits 0; the exit code must say it too.
      process.exitCode = 1;
      throw new Error(
        `the tests wrote outside their temporary directories or left them behind; give every run SVC_CONFIG_DIR, SVC_STATE_DIR and SVC_CACHE_DIR, and remove what it made:\n  ${problems.join('\n  ')}`,
      );
    }
  };
}
