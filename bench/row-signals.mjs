// `node --expose-gc bench/row-signals.mjs [rows]`: the heap a bulk run's rows leave behind, over
// the runner itself (src/bulk/runner.ts, bundled from src/ with esbuild), its worker doing nothing
// but wait a turn of the event loop as a request would. Not part of `npm run bench`: it needs
// --expose-gc. Each row's own signal (src/http/retry.ts finishingItem) once came from
// AbortSignal.any, which on Node 20 stays listed on the run's stop signal for good
// (nodejs/node#55351): review23b L1, figures in bench/RESULTS.md.
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { ROOT } from './lib.mjs';

if (typeof globalThis.gc !== 'function') throw new Error('run it with node --expose-gc');
const rows = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'svc-row-signals-'));
const bundle = join(dir, 'runner.mjs');
try {
  await build({
    absWorkingDir: ROOT,
    stdin: {
      contents:
        "export { runItems } from './src/bulk/runner.ts'; export { finishingSent } from './src/http/retry.ts';",
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'error',
  });
  const { runItems, finishingSent } = await import(pathToFileURL(bundle).href);
  const heapMB = () => {
    globalThis.gc();
    globalThis.gc();
    return process.memoryUsage().heapUsed / 1e6;
  };
  const stop = new AbortController();
  const requests = finishingSent(stop.signal).signal;
  function* items() {
    for (let i = 0; i < rows; i++) yield { key: String(i), data: i };
  }
  const before = heapMB();
  const summary = await runItems({
    items: items(),
    concurrency: 8,
    runId: 'bench',
    stop: stop.signal,
    requests,
    now: Date.now,
    work: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return {};
    },
  });
  // A WeakRef's target lives to the end of the job that made it: measured on a later turn.
  await new Promise((resolve) => setTimeout(resolve, 10));
  const after = heapMB();
  const key = Object.getOwnPropertySymbols(stop.signal).find((s) => s.description === 'kDependantSignals');
  console.log(
    JSON.stringify({
      node: process.version,
      rows: summary.total,
      heapBeforeMB: Number(before.toFixed(1)),
      heapAfterMB: Number(after.toFixed(1)),
      growthMB: Number((after - before).toFixed(1)),
      listenersOnRunSignal: getEventListeners(requests, 'abort').length,
      signalsListedOnStop: key === undefined ? null : stop.signal[key].size,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
