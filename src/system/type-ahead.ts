import type { Readable } from 'node:stream';

/** Long enough for keys already waiting on the terminal to be read (they come at the next poll). */
const SETTLE_MS = 30;

/**
 * Drops what was typed on the terminal before a question is shown: `svc roles delete R` and then
 * `y⏎` typed at once, before the question appeared, would otherwise answer it. A complete line
 * typed ahead is readable at once (the terminal is still in line mode), as is anything an earlier
 * prompt left unread; it is read and dropped, then reading stops and the question reads only
 * what comes after. The terminal's mode is not touched, so Ctrl-C stays a signal. Only a real
 * terminal (isTTY): a file or pipe on stdin holds data, not keys.
 */
export async function discardTypeAhead(stdin: Readable): Promise<void> {
  if ((stdin as { isTTY?: boolean }).isTTY !== true || stdin.readableEnded) return;
  const drop = () => {};
  stdin.on('data', drop);
  try {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  } finally {
    stdin.off('data', drop);
    stdin.pause();
  }
}
