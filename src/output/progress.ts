import type { Writable } from 'node:stream';

/** A progress bar on stderr, only when stderr is a terminal and the output is not machine-readable. */
export interface Progress {
  tick(status: 'ok' | 'failed' | 'skipped' | 'unknown'): void;
  done(): void;
}

const NOOP: Progress = { tick() {}, done() {} };
const WIDTH = 24;
const FRAME_MS = 100;

export function createProgress(
  stream: Writable,
  enabled: boolean,
  total: number | undefined,
  label: string,
  /** The locale is UTF-8 (io.ts unicodeLocale): else svc's symbols are ASCII. */
  unicode = true,
): Progress {
  if (!enabled) return NOOP;
  // svc's own separator; the label may quote data (a webhook id), which is shown as it is.
  const dot = unicode ? ' · ' : ' - ';
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
    const bar = total ? `[${'#'.repeat(Math.round(share * WIDTH)).padEnd(WIDTH, '.')}] ` : '';
    const of = total ? `/${total.toLocaleString('en')} ${Math.floor(share * 100)}%` : '';
    const extra = [
      failed ? `${failed.toLocaleString('en')} failed` : '',
      skipped ? `${skipped.toLocaleString('en')} skipped` : '',
      unknown ? `${unknown.toLocaleString('en')} unknown` : '',
    ]
      .filter(Boolean)
      .join(', ');
    stream.write(
      `\r\u001b[2K${label} ${bar}${count.toLocaleString('en')}${of}${dot}${Math.round(rate).toLocaleString('en')}/s${extra ? `${dot}${extra}` : ''}`,
    );
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
