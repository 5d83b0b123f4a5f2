import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createIO, systemIO } from '../../src/output/io.js';

const streams = () => ({ stdin: Readable.from([]), stdout: new PassThrough(), stderr: new PassThrough() });

describe('the TTY decision', () => {
  it('is the caller’s: no environment variable makes a pipe a terminal', () => {
    // Tests run with stdout piped to the runner; SVC_FORCE_TTY was a test-only backdoor.
    const io = systemIO({ SVC_FORCE_TTY: '120' });
    expect(io.stdoutIsTTY).toBe(process.stdout.isTTY === true);
    expect(io.columns).toBe(process.stdout.columns ?? 80);
  });

  it.each([
    [{ stdin: false, stdout: true, stderr: false, columns: 132 }, {}, false, [true, false, 132]],
    [{ stdin: false, stdout: true, stderr: true }, { NO_COLOR: '1' }, false, [false, false, 80]],
    [{ stdin: false, stdout: true, stderr: true }, {}, true, [false, false, 80]],
    [{ stdin: false, stdout: false, stderr: false }, { FORCE_COLOR: '1' }, false, [true, true, 80]],
    [{ stdin: true, stdout: true, stderr: true }, { TERM: 'dumb' }, false, [false, false, 80]],
    // FORCE_COLOR set empty says nothing (the terminal decides); `false` turns colour off as `0` does.
    [{ stdin: false, stdout: false, stderr: true }, { FORCE_COLOR: '' }, false, [false, true, 80]],
    [{ stdin: true, stdout: true, stderr: true }, { FORCE_COLOR: 'false' }, false, [false, false, 80]],
    [{ stdin: true, stdout: true, stderr: true }, { FORCE_COLOR: '0' }, false, [false, false, 80]],
  ])(
    'claims %j with env %j and --no-color %s give colour (stdout, stderr) and width %j',
    (claims, env, noColor, [out, err, width]) => {
      const io = createIO(streams(), claims, env, { noColor });
      expect([io.colorStdout, io.colorStderr, io.columns]).toEqual([out, err, width]);
      expect([io.stdinIsTTY, io.stdoutIsTTY, io.stderrIsTTY]).toEqual([
        claims.stdin,
        claims.stdout,
        claims.stderr,
      ]);
    },
  );
});

describe('the terminal width', () => {
  // `script`, `docker exec -t` without a size and some CI ptys report 0 columns.
  it.each<[number | undefined, Record<string, string>, number]>([
    [120, { COLUMNS: '100' }, 120],
    [0, { COLUMNS: '100' }, 100],
    [undefined, { COLUMNS: '100' }, 100],
    [0, {}, 80],
    [0, { COLUMNS: '0' }, 80],
    [0, { COLUMNS: 'wide' }, 80],
    [0, { COLUMNS: ' 100 ' }, 100],
    // Only whole digits: not an exponent or a hex number, which Number() would read.
    [0, { COLUMNS: '1e3' }, 80],
    [0, { COLUMNS: '0x64' }, 80],
  ])('reported %j with env %j is %i columns', (columns, env, width) => {
    const io = createIO(streams(), { stdin: true, stdout: true, stderr: true, columns }, env);
    expect(io.columns).toBe(width);
  });
});

describe('cursor control (the progress line redrawn in place)', () => {
  it.each<[Record<string, string>, boolean]>([
    [{ TERM: 'dumb' }, false],
    [{ TERM: 'xterm-256color' }, true],
    [{}, true],
  ])('env %j: %s', (env, cursor) => {
    expect(createIO(streams(), { stdin: true, stdout: true, stderr: true }, env).cursorControl).toBe(cursor);
  });
});
