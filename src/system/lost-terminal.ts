import { closeSync } from 'node:fs';
import { isatty } from 'node:tty';

/**
 * A terminal that went away (an SSH drop, a closed window: the pty's master closed). Its file
 * descriptors stay open but every terminal call on them fails with EIO, so `isatty` says no.
 *
 * Two places in Node trip over that and svc must keep away from both:
 * - a readline interface (Inquirer's) puts the terminal out of raw mode when its input ends;
 *   `setRawMode` fails with EIO and the error reaches the interface, which has no listener:
 *   a stack trace. `guardRawMode` makes that call a no-op once the terminal is gone.
 * - at exit, Node 20 puts each standard stream that was a terminal back into its first mode and
 *   aborts (a core dump, exit 134) when that fails with anything but EPERM (nodejs/node#51519,
 *   fixed in #58200, not in Node 20). It skips a descriptor that is closed: `releaseLostTerminals`
 *   closes the ones whose terminal is gone, as the process ends.
 */

/** Whether `fd` was a terminal and is not one any more: its terminal went away. */
function gone(fd: number): boolean {
  return !isatty(fd);
}

/** Whether the stream is a terminal whose terminal went away (false for a pipe or a file). */
export function terminalGone(stream: unknown): boolean {
  const { isTTY, fd } = stream as { isTTY?: boolean; fd?: unknown };
  return isTTY === true && typeof fd === 'number' && gone(fd);
}

const guarded = new WeakSet<object>();

/**
 * Makes the stream's `setRawMode` do nothing once its terminal is gone, for good (readline calls
 * it again as it closes, after the prompt has settled). Streams without `setRawMode` (a pipe, a
 * test's stream) are left as they are.
 */
export function guardRawMode(input: object): void {
  const stream = input as { setRawMode?: (flag: boolean) => unknown; fd?: unknown };
  const original = stream.setRawMode;
  if (typeof original !== 'function' || typeof stream.fd !== 'number' || guarded.has(input)) return;
  guarded.add(input);
  const fd = stream.fd;
  stream.setRawMode = function (this: unknown, flag: boolean) {
    if (gone(fd)) return this;
    return original.call(this, flag);
  };
}

/** Which of the standard descriptors (0, 1, 2) are terminals now: for releaseLostTerminals. */
export function standardTerminals(): boolean[] {
  return [0, 1, 2].map((fd) => isatty(fd));
}

/** Closes each standard descriptor that was a terminal (`wereTerminals`) whose terminal is gone. */
export function releaseLostTerminals(wereTerminals: boolean[]): void {
  wereTerminals.forEach((was, fd) => {
    if (!was || !gone(fd)) return;
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  });
}
