// src/output/problems.ts: the problems of an input file and the reasons an error stands on, as
// each output mode shows them (bulk files and access files use them; the mutation run of
// src/output found the file covered by no test of its selection).

import { describe, expect, it } from 'vitest';
import { PROBLEMS_SHOWN, ProblemReport, reasonLines } from '../../src/output/problems.js';
import { testContext } from '../helpers/context.js';

const MODES = [
  ['a terminal', { tty: true }],
  ['a pipe', {}],
] as const;

describe('ProblemReport', () => {
  it.each(MODES)('on %s prints each problem at once as FILE:LINE: message, and keeps it', (_, options) => {
    const { ctx, stdout, stderr } = testContext({ ...options, env: { LANG: 'C.UTF-8' } });
    const report = new ProblemReport(ctx, 'grants.csv');
    report.add(3, 'unknown role "auditr"');
    report.add(undefined, 'no rows');
    report.more(1234, 'lines with problems');
    expect(stderr()).toBe(
      'grants.csv:3: unknown role "auditr"\ngrants.csv: no rows\n… and 1,234 more lines with problems\n',
    );
    expect(stdout()).toBe('');
    expect(report.details).toEqual([
      { file: 'grants.csv', line: 3, message: 'unknown role "auditr"' },
      { file: 'grants.csv', line: null, message: 'no rows' },
    ]);
  });

  it.each([[{ json: true }], [{ ndjson: true }]])(
    'with %j prints nothing and keeps every problem for details',
    (globals) => {
      const { ctx, stdout, stderr } = testContext({ globals });
      const report = new ProblemReport(ctx, 'access.yaml');
      report.add(7, 'bad duration "3 days"');
      report.more(5, 'problems');
      expect(stderr()).toBe('');
      expect(stdout()).toBe('');
      expect(report.details).toEqual([{ file: 'access.yaml', line: 7, message: 'bad duration "3 days"' }]);
    },
  );

  it.each([0, -3])('says nothing more when %i were left out', (count) => {
    const { ctx, stderr } = testContext();
    new ProblemReport(ctx, 'grants.csv').more(count, 'problems');
    expect(stderr()).toBe('');
  });

  it('says "..." for the ellipsis where the locale is not UTF-8', () => {
    const { ctx, stderr } = testContext({ env: { LANG: 'C' } });
    new ProblemReport(ctx, 'f').more(1, 'problem');
    expect(stderr()).toBe('... and 1 more problem\n');
  });

  it('shows a thousand problems before it counts the rest', () => {
    expect(PROBLEMS_SHOWN).toBe(1000);
  });
});

describe('reasonLines', () => {
  it.each(MODES)('on %s prints each reason on a line before the error, and says so', (_, options) => {
    const { ctx, stdout, stderr } = testContext(options);
    const reasons = reasonLines(ctx, ['role auditor drifted', 'grant of usr_1 refused']);
    expect(stderr()).toBe('role auditor drifted\ngrant of usr_1 refused\n');
    expect(stdout()).toBe('');
    expect(reasons).toEqual({
      details: [{ message: 'role auditor drifted' }, { message: 'grant of usr_1 refused' }],
      where: 'each on a line above',
    });
  });

  it.each([[{ json: true }], [{ ndjson: true }]])('with %j keeps them for details only', (globals) => {
    const { ctx, stdout, stderr } = testContext({ globals });
    expect(reasonLines(ctx, ['role auditor drifted'])).toEqual({
      details: [{ message: 'role auditor drifted' }],
      where: 'each in details',
    });
    expect(stderr()).toBe('');
    expect(stdout()).toBe('');
  });
});
