import { describe, expect, it } from 'vitest';
import { DOCUMENT, runTool } from '../helpers/tools.js';

// @redocly/cli's recommended ruleset over the published document (issue 10).
describe('redocly lint (recommended)', () => {
  it('finds 0 errors and no operation without an operationId', async () => {
    const r = await runTool('@redocly/cli/bin/cli.js', [
      'lint',
      DOCUMENT,
      '--extends',
      'recommended',
      '--format',
      'json',
    ]);
    const report = JSON.parse(r.stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{
        ruleId: string;
        severity: string;
        message: string;
        location: Array<{ pointer: string }>;
      }>;
    };
    const errors = report.problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(report.problems.filter((p) => p.ruleId === 'operation-operationId')).toEqual([]);
    expect(r.code).toBe(0);
  });
});
