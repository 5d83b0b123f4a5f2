/**
 * `FIXED_COSTS_OUT=/tmp/fc.jsonl CI=true npx vitest run --config bench/fixed-costs/vitest.config.ts
 * --maxWorkers=1 <probe>`: each probe appends JSON lines of CPU figures (process.cpuUsage, every
 * thread of the worker) to FIXED_COSTS_OUT. A probe run alone gets a fresh worker (plain-1 and
 * warm: a worker's start, setup files and warm-up); plain- runs ten near-empty files in one worker
 * (the per-file cost of a warm worker). bench/RESULTS.md, "Per-file fixed costs (session 29)".
 *
 * The suite's own vitest settings (setup files, worker flags, pool) for the fixed-cost probes of
 * bench/fixed-costs: only the files included differ (mergeConfig would add to the suite's list).
 */
import { fileURLToPath } from 'node:url';
import suite from '../../vitest.config.js';

export default {
  ...suite,
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: { ...suite.test, include: ['bench/fixed-costs/*.probe.ts'], reporters: ['default'] },
};
