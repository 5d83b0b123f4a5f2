import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export default defineConfig({
  define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // The default output, then one line per system tool whose tests were skipped (test/helpers/needs.ts).
    reporters: ['default', './test/reporters/missing-tools.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Tests spawn processes and servers; two cores are all CI has.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
