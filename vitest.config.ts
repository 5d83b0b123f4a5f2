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
    // Tests spawn processes and servers; two cores are all CI has. (3 workers measured no faster.)
    maxWorkers: 2,
    // A worker keeps its loaded modules from one test file to the next: each file used to import
    // src/ (the command tree, fastify, undici) afresh, 45 of the 130 s of test/commands +
    // test/sandbox. Test files share no state but the module cache: every file starts its own
    // sandbox and temporary directories, no file mocks a module or changes process.env, and
    // vi.spyOn is restored after each test (test/runtime/runtime.test.ts).
    isolate: false,
    fileParallelism: true,
  },
});
