/**
 * What svc does to its own runtime, in one place. Start-up is most of a CLI's time, so svc
 * shapes it deliberately (figures in bench/RESULTS.md):
 *
 * - bin/svc.js, the launcher, answers `--version` without loading anything, and otherwise
 *   compiles dist/cli.cjs as a vm.Script with a V8 code cache, one per command word, under
 *   SVC_CACHE_DIR (Node 20 has no module compile cache). Before it reads argv it needs the
 *   global flags that take a value (`-p NAME tenants ls` is the `tenants` cache), which the build
 *   writes to dist/launcher.json from launcherFacts() (src/cli.ts): the program's own options.
 *   At exit it calls restoreDefaultFlags() before writing a cache (V8 stamps caches with its flags).
 * - V8 flags (./v8-flags.ts): the baseline WebAssembly compiler for short commands, chosen by
 *   the entry point (runtimeFor) and applied by the Context just before the HTTP client is
 *   made, never as a side effect of an import; a compact heap during bulk runs.
 * - The bundle (./bundle.mjs): what it leaves out or stubs, and why; scripts/build.mjs applies it.
 */
import { useBaselineWasmCompiler } from './v8-flags.js';

export { restoreDefaultFlags, withCompactHeap } from './v8-flags.js';

/**
 * What main() hands the Context for a command: short commands switch to the baseline Wasm
 * compiler just before the HTTP client is made (before llhttp compiles). Not at start-up: set
 * there, `svc tenants ls` measured about 5 ms slower (bench/, interleaved medians).
 */
export function runtimeFor(command: { longRunning?: boolean } | undefined): { beforeHttp?: () => void } {
  return command?.longRunning ? {} : { beforeHttp: useBaselineWasmCompiler };
}
