// Every end-to-end test spawns the built binary, so build dist/ once before any test runs, and
// give every svc process the tests start one private code-cache directory: the suite must never
// write into the user's ~/.cache/svc (teardown checks that this build's cache did not appear there).
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
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

/** Where the launcher would keep this build's code caches with the user's own settings. */
function userCacheOfThisBuild(): string {
  const bundle = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
  const stat = statSync(bundle);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'svc', `v8-${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}`);
}

export default async function setup(project: TestProject): Promise<() => void> {
  await buildDist({ quiet: true });
  const cacheDir = mkdtempSync(join(tmpdir(), 'svc-test-cache-'));
  project.provide('svcCacheDir', cacheDir);
  const forbidden = userCacheOfThisBuild();
  return () => {
    rmSync(cacheDir, { recursive: true, force: true });
    if (existsSync(forbidden)) {
      // vitest reports an error thrown here but still exits 0; the exit code must say it too.
      process.exitCode = 1;
      throw new Error(`a test ran svc without SVC_CACHE_DIR: it wrote code caches into ${forbidden}`);
    }
  };
}
