// Mutation testing (issue 12: tests that prove they assert). `npm run mutation` mutates the six
// folders whose tests must kill at least 80% of mutants; docs/MUTATION.md has the scores, how to
// run one folder with its own tests (`SVC_MUTATION_FOLDER=http npm run mutation -- --mutate
// 'src/http/**/*.ts'`) and every surviving mutant kept on purpose. Not part of `npm test`: one
// folder takes 5 to 20 minutes on two cores, all six with every in-process test hours.
//
// No @stryker-mutator/typescript-checker: it drives the TypeScript compiler API, which the
// typescript 7 (native) package this project uses does not ship. Mutants that would not type-check
// still run, and are killed or survive on behaviour alone.

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  // Only unit and in-process tests: spawned tests run dist/, which never contains a mutant.
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/http/**/*.ts',
    'src/bulk/**/*.ts',
    'src/auth/**/*.ts',
    'src/config/**/*.ts',
    'src/output/**/*.ts',
    'src/webhooks/**/*.ts',
  ],
  // A mutant in code that runs on import (a constant table, a module-level regex) is covered by
  // every test and would need the whole selection per mutant (minutes each): Stryker reports such
  // "static" mutants as ignored. docs/MUTATION.md gives their count per folder.
  ignoreStatic: true,
  // Two cores, shared with other work: one test runner at a time.
  concurrency: 1,
  // A mutant that hangs a test counts as detected; Stryker waits the test's own time plus this.
  timeoutMS: 5_000,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  ignorePatterns: ['dist', 'reports', 'bench/.work', 'coverage'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
  // Stryker parses this file with the TypeScript compiler API (absent from typescript 7) only to
  // rewrite `extends`/`references` paths into its sandbox; our tsconfig.json has neither, and the
  // sandbox keeps its own copy unchanged. Naming a file that does not exist skips that step.
  tsconfigFile: 'tsconfig.stryker-skip.json',
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
