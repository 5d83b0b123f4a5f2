/**
 * test/helpers/terminal.ts's `interrupt` (review29a L3): a second C-c only when the first wait for
 * the prompt timed out, said in one line on stderr (so a fallback that recurs shows in CI's logs);
 * any other failure (tmux gone) is the test's, not retried. Played on a Terminal whose keys and
 * waits are the test's own: no tmux.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Terminal, TerminalTimeout } from '../helpers/terminal.js';

const PROMPT = /^% $/m;

/** A Terminal whose `waitFor` answers from `waits`, in order, and records the keys sent. */
function scripted(waits: Array<() => string>): { terminal: Terminal; keys: string[]; bounds: unknown[] } {
  const keys: string[] = [];
  const bounds: unknown[] = [];
  const terminal = Object.create(Terminal.prototype) as Terminal;
  Object.assign(terminal, {
    send: async (...sent: string[]) => {
      keys.push(...sent);
    },
    waitFor: async (_pattern: RegExp, timeoutMs?: number) => {
      bounds.push(timeoutMs);
      const next = waits.shift();
      if (!next) throw new Error('no more waits scripted');
      return next();
    },
  });
  return { terminal, keys, bounds };
}

const timedOut = (screen: string) => () => {
  throw new TerminalTimeout(PROMPT, screen);
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Terminal.interrupt', () => {
  it('one C-c when the prompt comes back; nothing said', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { terminal, keys, bounds } = scripted([() => '% ']);
    await terminal.interrupt(PROMPT);
    expect([keys, bounds, warn.mock.calls]).toEqual([['C-c'], [10_000], []]);
  });

  it('a second C-c after the first wait timed out, said in one line naming the screen’s last line', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { terminal, keys, bounds } = scripted([
      timedOut('% svc tenants \n  acme-payments\n\n'),
      () => '% ',
    ]);
    await terminal.interrupt(PROMPT);
    expect([keys, bounds]).toEqual([
      ['C-c', 'C-c'],
      [10_000, undefined],
    ]);
    expect(warn.mock.calls).toEqual([
      [
        'terminal.interrupt: a second C-c was needed (no prompt 10 s after the first; the screen\'s last line: "  acme-payments")',
      ],
    ]);
  });

  it('any other failure of the wait (tmux gone) is thrown, with no second C-c', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const gone = new Error('no server running on /tmp/tmux-0/svc-test-x');
    const { terminal, keys } = scripted([
      () => {
        throw gone;
      },
      () => '% ',
    ]);
    await expect(terminal.interrupt(PROMPT)).rejects.toBe(gone);
    expect([keys, warn.mock.calls]).toEqual([['C-c'], []]);
  });
});
