import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli.js';
import { fakeIO, testDeps, useTempDirs } from '../helpers/context.js';

// review20c F8: "error: cancelled at the prompt" ended with exit 0 when the event loop drained while
// the command's context was closing (an ended standard input at a prompt): main() set the exit
// code only after the close. runCli now tells a failure's code before it closes the context.
const dirs = useTempDirs();

describe('runCli tells a failed command’s exit code before it closes the context', () => {
  it.each([
    [['no-such-verb'], 2],
    [['records', 'get', 'exceptions', 'rec_1', '--base-url', 'http://127.0.0.1:9'], undefined],
  ])('svc %j', async (argv, expected) => {
    const onFailure = vi.fn();
    const { io } = fakeIO();
    const code = await runCli(argv, testDeps(io, dirs()), { onFailure });
    expect(code).not.toBe(0);
    if (expected !== undefined) expect(code).toBe(expected);
    expect(onFailure.mock.calls).toEqual([[code]]);
  });

  it('a command that succeeds tells nothing', async () => {
    const onFailure = vi.fn();
    const code = await runCli(['--version'], testDeps(fakeIO().io, dirs()), { onFailure });
    expect([code, onFailure.mock.calls]).toEqual([0, []]);
  });
});
