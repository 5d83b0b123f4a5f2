import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

// svc audit ls on a 40-column terminal (review24a L1): ID and AT take 24 of the 40 columns, and
// the four text columns at their least width hold the table wide. The note blamed ID and AT alone
// and did not say that a pipe shows the cut columns whole.
const svc = useSandboxContext();

describe('svc audit ls at 40 columns: the note of a table wider than the terminal', () => {
  it('names every column at its least width beside the ids and times, and sends the reader to a pipe for the cut ones', async () => {
    const r = await svc.run(['audit', 'ls', '--limit', '4'], { tty: true, columns: 40 });
    expect(r.code, r.stderr).toBe(0);
    const [head, first] = r.stdout.split('\n');
    expect([head, first?.split(/ {2,}/).slice(2)]).toEqual([
      'ID           AT           ACTION  ACTOR   SUMMA…  CHANGE',
      ['role.…', 'system', 'tenan…', '-'],
    ]);
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([
      '(ids shortened to fit: --wide, a pipe or --json shows them whole)',
      '(the table is wider than the terminal: ID and AT cannot be shorter, and ACTION, ACTOR, SUMMARY and CHANGE are at their least width; a pipe or --json shows ACTION and SUMMARY whole)',
    ]);
  });
});
