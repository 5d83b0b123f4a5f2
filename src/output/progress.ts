import type { Writable } from 'node:stream';
import { ellipsis } from './symbols.js';
import { cutToWidth, textWidth } from './width.js';

/** A progress bar on stderr, only when stderr is a terminal and the output is not machine-readable. */
export interface Progress {
  tick(status: 'ok' | 'failed' | 'skipped' | 'unknown'): void;
  done(): void;
}

const NOOP: Progress = { tick() {}, done() {} };
const WIDTH = 24;
const FRAME_MS = 100;
/** The shortest a cut label gets ("replaying…") before the bar, then the rate, make room instead. */
const MIN_LABEL = 10;

/** `text` in at most `room` columns (cutToWidth: whole graphemes), cut with the mark when longer. */
function cut(text: string, room: number, mark: string): string {
  if (textWidth(text) <= room) return text;
  if (room <= textWidth(mark)) return cutToWidth(text, Math.max(0, room), '');
  return `${cutToWidth(text, room - textWidth(mark), '').trimEnd()}${mark}`;
}

/**
 * One frame in `max` characters. A line wider than the terminal wraps, and `\r\e[2K` then clears
 * only its last row: every frame would leave one behind. What gives way, in order: the label (it
 * may quote a webhook id) down to MIN_LABEL, the bar, the rate, then the label altogether; the
 * counts and failures stay, cut only on a terminal narrower than they are.
 */
function fitFrame(
  parts: { label: string; bar: string; counts: string; rate: string; extra: string },
  max: number,
  mark: string,
): string {
  const { label, bar, counts, rate, extra } = parts;
  for (const tail of [`${bar}${counts}${rate}${extra}`, `${counts}${rate}${extra}`, `${counts}${extra}`]) {
    const room = max - textWidth(tail) - 1;
    if (textWidth(label) <= room || room >= MIN_LABEL) return `${cut(label, room, mark)} ${tail}`;
  }
  return cut(`${counts}${extra}`, max, mark);
}

export function createProgress(
  stream: Writable,
  enabled: boolean,
  total: number | undefined,
  label: string,
  /** The locale is UTF-8 (io.ts unicodeLocale): else svc's symbols are ASCII. */
  unicode = true,
  /** The width when the stream reports none (the IOStreams' columns). */
  columns = 80,
): Progress {
  if (!enabled) return NOOP;
  // svc's own separator; the label may quote data (a webhook id), which is shown as it is.
  const dot = unicode ? ' · ' : ' - ';
  const mark = ellipsis(unicode);
  const started = Date.now();
  let ok = 0;
  let failed = 0;
  let skipped = 0;
  let unknown = 0;
  let last = 0;
  let shown = false;
  const draw = (force: boolean) => {
    const now = Date.now();
    if (!force && now - last < FRAME_MS) return;
    last = now;
    const count = ok + failed + skipped + unknown;
    const rate = count / Math.max(0.001, (now - started) / 1000);
    const share = total ? Math.min(1, count / total) : 0;
    const extra = [
      failed ? `${failed.toLocaleString('en')} failed` : '',
      skipped ? `${skipped.toLocaleString('en')} skipped` : '',
      unknown ? `${unknown.toLocaleString('en')} unknown` : '',
    ]
      .filter(Boolean)
      .join(', ');
    // Read at each frame: a terminal resized during the run (SIGWINCH updates a TTY stream's
    // columns) gets the next frame at its new width. One column is left free: a line that fills
    // the last one leaves some terminals on the next row.
    const reported = (stream as { columns?: number }).columns;
    const width = reported !== undefined && reported > 0 ? reported : columns;
    const frame = fitFrame(
      {
        label,
        bar: total ? `[${'#'.repeat(Math.round(share * WIDTH)).padEnd(WIDTH, '.')}] ` : '',
        counts: `${count.toLocaleString('en')}${total ? `/${total.toLocaleString('en')} ${Math.floor(share * 100)}%` : ''}`,
        rate: `${dot}${Math.round(rate).toLocaleString('en')}/s`,
        extra: extra ? `${dot}${extra}` : '',
      },
      Math.max(1, width - 1),
      mark,
    );
    stream.write(`\r\u001b[2K${frame}`);
    shown = true;
  };
  return {
    tick(status) {
      if (status === 'ok') ok++;
      else if (status === 'failed') failed++;
      else if (status === 'unknown') unknown++;
      else skipped++;
      draw(false);
    },
    done() {
      if (shown) stream.write('\r\u001b[2K');
    },
  };
}
