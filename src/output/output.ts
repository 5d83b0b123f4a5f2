// Over 300 lines on purpose: the one writer of svc's output (tables, TSV, JSON, NDJSON, records,
// messages) is one class whose modes share its private state — the streams, draining, a closed
// pipe, colour and the secrets to redact; table fitting and formatting live beside it (layout.ts,
// chunks.ts, format.ts).
import { once } from 'node:events';
import { Chalk, type ChalkInstance } from 'chalk';
import { reindentJsonChunks } from '../api/json-text.js';
import { jsonAsTheyCame } from '../api/numbers-as-they-came.js';
import { ClosedPipeError, type SvcError } from '../errors.js';
import { redactText, type SecretRegistry } from '../http/redact.js';
import { StreamedTable } from './chunks.js';
import { cellText, relativeTime, rfc3339, terminalCellText } from './format.js';
import { withAsciiHosts } from './hosts.js';
import type { IOStreams } from './io.js';
import { type ColumnKind, shortenId } from './layout.js';
import { escapeForTerminal, escapeJsonForTerminal, jsonOneLine, oneLine } from './sanitize.js';
import { STATUS_COLOURS } from './status.js';
import { ellipsis, sym, useUnicodeMarks } from './symbols.js';
import { cutToWidth, padToWidth, textWidth } from './width.js';

export type OutputMode = 'table' | 'plain' | 'json' | 'ndjson';

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /**
   * `time` values render relative on a terminal and as RFC 3339 otherwise; `id` columns are
   * shortened to a unique prefix only when a terminal table would not fit otherwise; `name`
   * columns (a role's name, an audit action, an event type) are cut only as far as no two of the
   * column's values read alike; `status` values are coloured on a terminal and never cut, nor are
   * times; `detail` columns (an error, a reason) are cut last. See layout.ts for the order in which a table is fitted.
   */
  kind?: ColumnKind;
  /**
   * Left out of terminal tables that would not fit otherwise (never out of TSV or JSON): `true`
   * or a rank, 1 dropped first, then 2, …
   */
  optional?: boolean | number;
  /**
   * What a terminal table shows instead of `value`, where the API's value would read wrong to a
   * person (an ended grant's expiry); pipes and JSON keep `value`.
   */
  table?: (row: T) => unknown;
}

function dropRank(optional: boolean | number | undefined): number {
  if (optional === true) return 1;
  return typeof optional === 'number' && optional > 0 ? optional : 0;
}

/**
 * A labelled value of a single record, for `record()`. An `optional` field whose value is empty
 * (null, absent or '') is left out on a terminal (a role's `deleted` while it is not); pipes keep
 * every label, so scripts see the same lines every time. A `url` field (a URL or a list of them)
 * shows a host that is not ASCII beside its punycode form on a terminal (hosts.ts).
 */
/**
 * A record's field. `time`: a time of the platform's, its relative time measured from the
 * platform's clock once svc knows it; `machine-time`: one svc stamped on this machine's clock (an
 * OAuth token's expiry, from `expires_in` at receipt), measured from this machine's clock.
 */
export type Field = [
  label: string,
  value: unknown,
  kind?: 'text' | 'time' | 'machine-time' | 'url',
  presence?: 'optional',
];

/** How many rows a table buffers before it prints a chunk when the list streams. */
const TABLE_CHUNK = 500;
/** Characters an id keeps after its type prefix when a table runs past one chunk (layout.ts keeps 6 otherwise). */
const MANY_ROWS_KEEP = 8;

/**
 * The one output layer. stdout carries data in the chosen mode; stderr carries messages.
 * Commands never write to a stream themselves.
 */
export class Output {
  readonly mode: OutputMode;
  readonly io: IOStreams;
  readonly #now: () => number;
  readonly #machineNow: () => number;
  readonly #chalkOut: ChalkInstance;
  readonly #chalkErr: ChalkInstance;
  readonly #secrets: SecretRegistry | undefined;
  /** --wide: terminal tables keep every column at full width (they may wrap). */
  readonly #wide: boolean;
  #drained: Promise<void> | undefined;
  /** stdout's reader went away (EPIPE). process.stdout is never marked destroyed, so it is kept here. */
  #closed = false;
  /** The error code of a write to stdout that failed otherwise (ENOSPC on a full disk, EIO). */
  #failure: string | undefined;
  /** stdout is scrubbed as stderr is (maskSecretsOnStdout). */
  #maskStdout = false;
  /** What the command ends with if stdout closes from now on (declareOutcome). */
  #outcome: SvcError | undefined;
  /** Writes stdout took (their callback came without an error): see stdoutTook. */
  #took = 0;

  constructor(
    io: IOStreams,
    mode: OutputMode,
    now: () => number,
    secrets?: SecretRegistry,
    options: { wide?: boolean; machineNow?: () => number } = {},
  ) {
    this.io = io;
    // JSON is the same whatever the locale: its text keeps svc's marks as they are.
    useUnicodeMarks(io.unicode || mode === 'json' || mode === 'ndjson');
    this.#wide = options.wide === true;
    this.mode = mode;
    this.#now = now;
    this.#machineNow = options.machineNow ?? now;
    this.#secrets = secrets;
    const machine = mode === 'json' || mode === 'ndjson';
    this.#chalkOut = new Chalk({ level: io.colorStdout && !machine ? 1 : 0 });
    this.#chalkErr = new Chalk({ level: io.colorStderr && !machine ? 1 : 0 });
  }

  get isMachine(): boolean {
    return this.mode === 'json' || this.mode === 'ndjson';
  }

  /** Colour helpers for stdout text (no-ops when colour is off). */
  get color(): ChalkInstance {
    return this.#chalkOut;
  }

  /**
   * True once stdout's reader went away or a write to it failed: what was written since may be
   * lost. `stdoutFailure` tells the two apart.
   */
  get stdoutClosed(): boolean {
    return this.#closed || this.#failure !== undefined || this.io.stdout.destroyed;
  }

  /**
   * How many writes stdout has taken so far (the write's callback came without an error). A
   * command compares it before and after printing to tell "nothing reached stdout" from "some of
   * it did" (`oauth authorize | head -1`: the reader may hold the first line).
   */
  get stdoutTook(): number {
    return this.#took;
  }

  /** The error code of a failed write to stdout (ENOSPC, EIO); undefined for a closed pipe or none. */
  get stdoutFailure(): string | undefined {
    return this.#failure;
  }

  /**
   * From now on, stdout is scrubbed of every secret svc knows and every credential shape, as
   * stderr always is. For commands whose stdout reports what others sent (`webhooks verify`'s
   * verdict quoting a header, `webhooks listen`'s lines): such text can hold a secret by mistake,
   * and these commands never show one on purpose (`webhooks create --show-secret` does, so stdout
   * is not scrubbed by default).
   */
  maskSecretsOnStdout(): void {
    this.#maskStdout = true;
  }

  /**
   * Declares the outcome the command ends with, known before (or while) it writes what it prints
   * with it: a refused call whose answer it prints, a verdict that is not valid, a plan with
   * changes pending, a dry run with rows that would fail. If stdout's reader goes away from here
   * on, the command ends with this outcome (src/cli.ts: its error on stderr, its exit code), not
   * quietly with 0 as a listing does; so it must say itself (not `silent`). undefined: the outcome
   * is a success again.
   */
  declareOutcome(outcome: SvcError | undefined): void {
    this.#outcome = outcome;
  }

  /** The outcome declared for a closed stdout (declareOutcome), if any. */
  get declaredOutcome(): SvcError | undefined {
    return this.#outcome;
  }

  /**
   * Writes to stdout, waiting when the reader is slow. A closed pipe, or a write that failed
   * (a full disk), throws ClosedPipeError, which carries the failure's code. With `taken`, it
   * resolves only once stdout has taken the bytes (the write's own callback), and throws if it
   * did not: for a line that must not be counted written before it was (listen answers a
   * delivery only after its line).
   */
  async write(text: string | Uint8Array, options: { taken?: boolean } = {}): Promise<void> {
    const out = this.io.stdout;
    if (this.stdoutClosed || out.writableEnded) throw new ClosedPipeError(this.#failure);
    // Bytes are `svc api`'s raw bodies, as they came; the commands that mask stdout write text.
    if (this.#maskStdout && typeof text === 'string') text = this.#redact(text);
    let ok: boolean;
    let tookIt: (() => void) | undefined;
    const taken = options.taken
      ? new Promise<void>((resolve) => {
          tookIt = resolve;
        })
      : undefined;
    try {
      // The write's own callback hears of a failure, without a listener left on the stream.
      ok = out.write(text, (error?: NodeJS.ErrnoException | null) => {
        if (error) this.#failed(error);
        else this.#took++;
        tookIt?.();
      });
    } catch (error) {
      if (!this.#failed(error)) throw error;
      throw new ClosedPipeError(this.#failure);
    }
    if (!ok && !out.destroyed) {
      this.#drained ??= this.#drain(out);
      await this.#drained;
      if (this.stdoutClosed) throw new ClosedPipeError(this.#failure);
    }
    if (taken !== undefined) {
      await taken;
      if (this.stdoutClosed) throw new ClosedPipeError(this.#failure);
    }
  }

  /**
   * Records a failed write to stdout: EPIPE is a reader gone away, another system error (ENOSPC,
   * EIO) a failed write. Returns false for anything else (svc's own error).
   */
  #failed(error: unknown): boolean {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code === 'EPIPE') this.#closed = true;
    else if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) this.#failure ??= code;
    else return false;
    return true;
  }

  /**
   * Waits until stdout drains or closes. Concurrent writers (bulk workers) share one wait, and
   * the listener that loses the race is removed, so slow readers leave no listeners behind.
   */
  async #drain(out: IOStreams['stdout']): Promise<void> {
    const settled = new AbortController();
    try {
      await Promise.race([
        once(out, 'drain', { signal: settled.signal }),
        once(out, 'close', { signal: settled.signal }),
      ]);
    } catch (error) {
      // `once` rejects on 'error': a reader gone away or a failed write, seen by write().
      if (!this.#failed(error)) throw error;
    } finally {
      settled.abort();
      this.#drained = undefined;
    }
  }

  /** A list of rows in the current mode. Rows may be an async iterable: they are streamed. */
  async list<T>(
    rows: Iterable<T> | AsyncIterable<T>,
    columns: Array<Column<T>>,
    options: { empty?: string } = {},
  ): Promise<number> {
    if (this.isMachine) return this.jsonList(rows);
    let count = 0;
    if (this.mode === 'plain') {
      for await (const row of rows) {
        await this.write(`${columns.map((c) => this.#cell(c, row)).join('\t')}\n`);
        count++;
      }
      return count;
    }
    let chunk: string[][] = [];
    const head = columns.map((c) => c.header.toUpperCase());
    const fit = columns.map((c) => ({ kind: c.kind ?? 'text', dropRank: dropRank(c.optional) }));
    const { renderTable } = await import('./table.js');
    // Laid out on the first chunk; each later one widened where its values need it (chunks.ts).
    const table = new StreamedTable(head, fit, this.io.columns, this.#wide, ellipsis(this.io.unicode));
    let first = true;
    const flush = async () => {
      if (chunk.length === 0) return;
      // A full first chunk may be followed by thousands of rows: its ids keep 8 characters, not 6.
      const { layout, before, after } = table.next(
        chunk,
        count - chunk.length + 1,
        chunk.length >= TABLE_CHUNK ? MANY_ROWS_KEEP : undefined,
      );
      for (const note of before) this.info(note);
      const { shown, widths, idKeep } = layout;
      // Cut before it is made bold: a cell with escapes is drawn whole (table.ts), and a header
      // is wider than a text column cut to its least (review23b M1).
      const header = first
        ? shown.map((i, k) =>
            this.#chalkOut.bold(cutToWidth(head[i]!, widths[k]!, ellipsis(this.io.unicode))),
          )
        : undefined;
      first = false;
      const cellOf = (cells: string[], i: number): string => {
        const keep = idKeep.get(i);
        const text = keep === undefined ? cells[i]! : shortenId(cells[i]!, keep, ellipsis(this.io.unicode));
        return fit[i]!.kind === 'status' ? this.#status(text) : text;
      };
      await this.write(
        renderTable(
          header,
          chunk.map((cells) => shown.map((i) => cellOf(cells, i))),
          widths,
          ellipsis(this.io.unicode),
        ),
      );
      chunk = [];
      for (const note of after) this.info(note);
    };
    for await (const row of rows) {
      chunk.push(columns.map((c) => this.#cell(c, row)));
      count++;
      if (chunk.length >= TABLE_CHUNK) await flush();
    }
    await flush();
    if (count === 0 && options.empty) this.info(options.empty);
    return count;
  }

  /** Rows as JSON whatever the mode: an array streamed item by item, or one line each with --ndjson. */
  async jsonList(rows: Iterable<unknown> | AsyncIterable<unknown>): Promise<number> {
    let count = 0;
    if (this.mode === 'ndjson') {
      for await (const row of rows) {
        await this.write(`${this.#json(row)}\n`);
        count++;
      }
      return count;
    }
    for await (const row of rows) {
      await this.write(`${count === 0 ? '[\n' : ',\n'}${this.#json(row)}`);
      count++;
    }
    await this.write(count === 0 ? '[]\n' : '\n]\n');
    return count;
  }

  /**
   * One record: the object itself as JSON, or labelled fields as text. `taken`: each write waits
   * until stdout took it (see write()).
   */
  async record(value: unknown, fields: Field[], options: { taken?: boolean } = {}): Promise<void> {
    if (this.isMachine) return this.json(value, options);
    const empty = (v: unknown) => v === null || v === undefined || v === '';
    const labelled = fields
      .filter(([, v, , presence]) => this.mode === 'plain' || presence !== 'optional' || !empty(v))
      .map(([label, v, kind]) => [cellText(label), v, kind] as const);
    if (this.mode === 'plain') {
      for (const [label, v, kind] of labelled) {
        const time = kind === 'time' || kind === 'machine-time';
        await this.write(`${label}\t${time ? rfc3339(v) : cellText(v)}\n`, options);
      }
      return;
    }
    const width = Math.max(...labelled.map(([label]) => textWidth(label)));
    for (const [label, v, kind] of labelled) {
      const now = kind === 'time' ? this.#now : kind === 'machine-time' ? this.#machineNow : undefined;
      const text =
        now && v
          ? `${rfc3339(v)} (${relativeTime(v, now())})`
          : terminalCellText(kind === 'url' ? withAsciiHosts(v) : v) || '-';
      await this.write(`${this.#chalkOut.bold(padToWidth(label, width))}  ${text}\n`, options);
    }
  }

  /** One JSON document (--json), or one compact line (--ndjson). */
  async json(value: unknown, options: { taken?: boolean } = {}): Promise<void> {
    await this.write(`${this.mode === 'ndjson' ? this.#json(value) : this.#json(value, 2)}\n`, options);
  }

  /**
   * JSON text as it came (an API answer), laid out as json() lays out a value, but with every
   * key, string and number as written: 12345678901234567891 is not printed as 12345678901234567000.
   * The text must be well formed (JSON.parse took it).
   */
  async jsonAsItCame(text: string): Promise<void> {
    // In pieces, as they are laid out: a large answer is not held a second time, whole.
    for (const laid of reindentJsonChunks(text, this.mode === 'ndjson' ? undefined : 2)) {
      const line = this.mode === 'ndjson' ? jsonOneLine(laid) : laid;
      await this.write(this.io.stdoutIsTTY ? escapeJsonForTerminal(line) : line);
    }
    await this.write('\n');
  }

  /**
   * A document svc composed whose server strings are all JSON-quoted (`svc export`'s YAML or
   * JSON): on a terminal, what JSON.stringify leaves raw (DEL, C1, bidi controls, U+2028/9) becomes
   * a `\uXXXX` escape, which YAML double-quoted strings and JSON both read back as the same
   * character, so the text on the screen is still the same document; a pipe gets the bytes.
   */
  async document(text: string): Promise<void> {
    await this.write(this.io.stdoutIsTTY ? escapeJsonForTerminal(text) : text);
  }

  /** One compact JSON line whatever the mode (streams of events, e.g. `webhooks listen --ndjson`). */
  async jsonLine(value: unknown, options: { taken?: boolean } = {}): Promise<void> {
    await this.write(`${this.#json(value)}\n`, options);
  }

  /** Free text on stdout for humans (tables and plain mode only). */
  async text(line: string): Promise<void> {
    await this.write(`${escapeForTerminal(line)}\n`);
  }

  /**
   * Text as it came (a raw API body, response headers): the bytes unchanged in a pipe, control
   * characters made visible on a terminal.
   */
  async raw(text: string): Promise<void> {
    await this.write(this.io.stdoutIsTTY ? escapeForTerminal(text) : text);
  }

  /**
   * A message for humans on stderr. It and success/notice/warn are one line each, whatever the
   * server values in them hold (sanitize.ts oneLine): the ✓ line is the record of what was done.
   */
  info(message: string): void {
    this.#stderr(`${oneLine(message)}\n`);
  }

  success(message: string): void {
    this.#stderr(`${this.#chalkErr.green(sym.check)} ${oneLine(message)}\n`);
  }

  /**
   * A message for humans on stderr while work goes on (a wait before a retry). On a terminal it
   * first clears the line, which a bulk run's progress bar may be on: the bar's next frame
   * redraws it below.
   */
  notice(message: string): void {
    const clear = this.io.stderrIsTTY && this.io.cursorControl ? '\r\u001b[2K' : '';
    this.#stderr(`${clear}${oneLine(message)}\n`);
  }

  warn(message: string): void {
    this.#stderr(`${this.#chalkErr.yellow('warning:')} ${oneLine(message)}\n`);
  }

  /** Text on stderr that svc did not compose itself (a debug trace, a log line): escaped. */
  stderr(text: string): void {
    this.#stderr(escapeForTerminal(text));
  }

  /** JSON text of a value as stdout gets it: on a terminal, what JSON leaves raw is escaped. */
  jsonText(value: unknown, indent?: number): string {
    return this.#json(value, indent);
  }

  #json(value: unknown, indent?: number): string {
    // An answer's numbers as the server wrote them, not as doubles (9007199254740993 stays).
    // A compact one is a line (NDJSON, a stream's event): no reader may split it (sanitize.ts).
    const text = indent === undefined ? jsonOneLine(jsonAsTheyCame(value)) : jsonAsTheyCame(value, indent);
    return this.io.stdoutIsTTY ? escapeJsonForTerminal(text) : text;
  }

  /** Everything on stderr is scrubbed of known secrets and credential shapes: it is for humans and logs. */
  #stderr(text: string): void {
    const err = this.io.stderr;
    if (err.destroyed || err.writableEnded) return;
    try {
      err.write(this.#redact(text));
    } catch {
      // stderr went away; nothing left to tell anyone
    }
  }

  #redact(text: string): string {
    return this.#secrets ? this.#secrets.redact(text) : redactText(text);
  }

  /** A status value in its colour (stdout; no-op when colour is off). */
  #status(text: string): string {
    // The word in any case, as svc reads status words (`DELIVERED` is delivered: deliveryState).
    const colour = STATUS_COLOURS[text.toLowerCase()];
    return colour ? this.#chalkOut[colour](text) : text;
  }

  #cell<T>(column: Column<T>, row: T): string {
    const value = this.mode === 'table' && column.table ? column.table(row) : column.value(row);
    if (column.kind === 'time') {
      if (value === null || value === undefined || value === '') return this.mode === 'table' ? '-' : '';
      return this.mode === 'table' ? relativeTime(value, this.#now()) : rfc3339(value);
    }
    const text = this.mode === 'table' ? terminalCellText(value) : cellText(value);
    return text === '' && this.mode === 'table' ? '-' : text;
  }
}
