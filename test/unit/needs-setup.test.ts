/**
 * review18 R18-5: a block needing the machine's set-up (test/commands/export/own-stdout.test.ts: a
 * node another uid can run) skipped under CI=true, so the breakage it guards would pass CI unseen.
 * As needs() for a tool: under CI it fails, naming what is missing; elsewhere it is skipped.
 */
import { describe, expect, it } from 'vitest';
import { setupOutcome } from '../helpers/needs.js';

describe('a block needing set-up the machine lacks', () => {
  it.each([
    [undefined, true, 'run'],
    [undefined, false, 'run'],
    ['uid 4242 cannot run node', true, 'fail'],
    ['uid 4242 cannot run node', false, 'skip'],
  ] as const)('missing %s, CI %s: %s', (missing, ci, outcome) => {
    expect(setupOutcome(missing, ci)).toBe(outcome);
  });
});
