/**
 * What svc does to its own runtime, in one place. Start-up is most of a CLI's time, so svc
 * shapes it deliberately (figures in bench/RESULTS.md):
 *
 * - bin/svc.js, the launcher, answers `--version` without loading anything, and otherwise
 *   compiles dist/cli.cjs as a vm.Script with a V8 code cache, one per command (an alias shares
 *   its command's; every word that is no command shares `other`, so the directory stays bounded),
 *   in SVC_CACHE_DIR/svc-code-cache, where it removes only the caches it wrote (Node 20 has no module compile cache). Before it reads argv it needs the
 *   global flags that take a value (`-p NAME tenants ls` and `-yp NAME tenants ls` are the
 *   `tenants` cache), those that do not (to read a group of short flags) and the command words, which the build writes to dist/launcher.json from launcherFacts() (src/cli.ts).
 *   At exit it calls restoreDefaultFlags() before writing a cache (V8 stamps caches with its flags).
 * - V8 flags (./v8-flags.ts): the baseline WebAssembly compiler for short commands, chosen by
 *   the entry point (main() passes runtimeFor to runCli) and applied by the Context just before
 *   the HTTP client is made, never as a side effect of an import; a compact heap in bulk runs.
 * - The bundle (./bundle.mjs): what it leaves out or stubs, and why; scripts/build.mjs applies it.
 */
import { envSwitch } from '../config/env-flags.js';
import type { Env } from '../output/io.js';
import { useBaselineWasmCompiler } from './v8-flags.js';

export { restoreDefaultFlags, withCompactHeap } from './v8-flags.js';

/**
 * The runtime of a command, which main() has runCli give its Context: short commands switch to
 * the baseline Wasm compiler once the HTTP modules are loaded and before the first connection
 * compiles llhttp. As late as that on purpose: V8 compiles code loaded after a flag change
 * without the code cache (the cache is stamped with the flags), so set at start-up it made
 * `svc tenants ls` about 5 ms slower (in-process CPU time, medians of 30 interleaved runs).
 */
export function runtimeFor(command: { longRunning?: boolean } | undefined): { beforeHttp?: () => void } {
  return command?.longRunning ? {} : { beforeHttp: useBaselineWasmCompiler };
}

/**
 * The launcher's own switches (SVC_NO_CODE_CACHE, SVC_DEBUG_CODE_CACHE), read again by the one
 * boolean rule: bin/svc.js treats a value that is no boolean as off and leaves the refusal to
 * runCli, which prints it in the output mode asked for (one JSON object with --json), exit 2.
 */
export function checkLauncherSwitches(env: Env): void {
  envSwitch(env, 'SVC_NO_CODE_CACHE');
  envSwitch(env, 'SVC_DEBUG_CODE_CACHE');
}
