/**
 * One visible line per missing system tool at the end of a run: "skipped 11 tests: fish not found
 * (apt-get install fish)". The tests are skipped by `needs()` (test/helpers/needs.ts), which marks
 * the skipped block with the tools it missed; this reporter counts the skipped tests under such
 * blocks. It runs next to vitest's default reporter (vitest.config.ts).
 */
import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';
import { missingPhrase, type SystemTool } from '../helpers/system-tools.js';

function missingFor(test: TestCase): SystemTool[] | undefined {
  for (let node: TestCase | TestSuite | TestModule = test; ; node = node.parent) {
    const missing = node.meta().missingTools;
    if (missing) return missing;
    if (node.type === 'module') return undefined;
  }
}

export default class MissingToolsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const counts = new Map<string, number>();
    for (const module of modules) {
      for (const test of module.children.allTests('skipped')) {
        const missing = missingFor(test);
        if (!missing) continue;
        const phrase = missingPhrase(missing);
        counts.set(phrase, (counts.get(phrase) ?? 0) + 1);
      }
    }
    for (const [phrase, count] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
      process.stdout.write(`skipped ${count} test${count === 1 ? '' : 's'}: ${phrase}\n`);
    }
  }
}
