/**
 * A secret input is read at most SECRET_INPUT_LIMIT bytes deep (src/system/input.ts): a mistyped
 * path to a device (/dev/zero, /dev/urandom), a huge file or an endless pipe is refused with one
 * line and exit 2 instead of being read into memory (it once grew svc to 24 GB). A directory is
 * refused by name, and a FIFO holding a real secret (`--secret-file <(pass show …)`) still works.
 */
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SECRET_INPUT_LIMIT } from '../../src/system/input.js';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { useTempFiles } from '../helpers/temp.js';

const made = useTempFiles('svc-secret-limit-');
const dir = made.dir;
const dirs = useTempDirs();
const T = 1_700_000_000;
const file = (name: string, content: Buffer | string) => made.file(name, content, { mode: 0o600 });
const payload = file('body.json', '{"id":"evt_1"}');
const big = file('big.secret', 'a'.repeat(SECRET_INPUT_LIMIT + 1));
const svc = (args: string[], stdin?: string | Readable) =>
  runInProcess(
    args,
    { ...dirs(), NO_COLOR: '1', SVC_BASE_URL: 'http://127.0.0.1:9' },
    { now: T * 1000, stdin },
  );
const sign = (secret: string) =>
  svc(['webhooks', 'sign', '--secret-file', secret, '--payload', payload, '--at', String(T)]);
const over = (what: string, piped = false) =>
  `error: ${what} is not a secret: it holds more than ${SECRET_INPUT_LIMIT} bytes; ` +
  (piped
    ? 'a secret is one key or token: check what is piped in\n'
    : 'a secret is one key or token: check the path (a device such as /dev/zero or a large file is not one)\n');

/** A stream that never ends (`< /dev/zero`). */
const endless = () =>
  new Readable({
    read() {
      this.push(Buffer.alloc(16 * 1024));
    },
  });

describe('secret inputs are read at most SECRET_INPUT_LIMIT bytes deep', () => {
  it.each([
    ['a file one byte over the limit', big],
    ['/dev/zero', '/dev/zero'],
    ['/dev/urandom', '/dev/urandom'],
  ])('webhooks sign --secret-file %s: refused, exit 2', async (_, path) => {
    const run = await sign(path);
    expect(run.stderr).toBe(over(`--secret-file ${path}`));
    expect([run.code, run.stdout]).toEqual([2, '']);
  });

  it('a secret of exactly the limit is read', async () => {
    const run = await sign(file('limit.secret', 'b'.repeat(SECRET_INPUT_LIMIT)));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^t=1700000000,v1=[0-9a-f]{64}\n$/);
  });

  it('a directory is refused by name', async () => {
    const run = await sign(dir);
    expect(run.stderr).toBe(`error: cannot read --secret-file ${dir}: it is a directory\n`);
    expect(run.code).toBe(2);
  });

  it('--secret-file - reading an endless standard input is refused', async () => {
    const run = await svc(
      ['webhooks', 'sign', '--secret-file', '-', '--payload', payload, '--at', String(T)],
      endless(),
    );
    expect(run.stderr).toBe(over('--secret-file -', true));
    expect(run.code).toBe(2);
  });

  it('a FIFO holding a secret is read; one that never ends is refused', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', `printf 'fifo-secret\\n' > '${fifo}'`]);
    const run = await sign(fifo);
    expect(run.code, run.stderr).toBe(0);
    writer.kill();
    const flood = spawn('sh', ['-c', `cat /dev/zero > '${fifo}'`]);
    const flooded = await sign(fifo);
    flood.kill();
    expect(flooded.stderr).toBe(over(`--secret-file ${fifo}`));
    expect(flooded.code).toBe(2);
  });

  it.each([
    [
      'webhooks verify --header-file',
      ['webhooks', 'verify', '--secret-file', payload, '--header-file', big, '--payload', payload],
      `--header-file ${big}`,
    ],
    [
      'oauth token --client-secret-file',
      [
        'oauth',
        'token',
        '--grant-type',
        'refresh_token',
        '--client-id',
        'cli_1',
        '--client-secret-file',
        big,
        '--refresh-token-file',
        payload,
      ],
      `--client-secret-file ${big}`,
    ],
    [
      'oauth token --refresh-token-file',
      [
        'oauth',
        'token',
        '--grant-type',
        'refresh_token',
        '--client-id',
        'cli_1',
        '--refresh-token-file',
        big,
      ],
      `--refresh-token-file ${big}`,
    ],
  ])('%s over the limit: refused, exit 2', async (_, argv, what) => {
    const run = await svc(argv);
    expect(run.stderr).toBe(over(what));
    expect(run.code).toBe(2);
  });

  it.each([
    ['login --with-token', ['login', '--with-token']],
    [
      'oauth token --client-secret-stdin',
      [
        'oauth',
        'token',
        '--grant-type',
        'refresh_token',
        '--client-id',
        'cli_1',
        '--client-secret-stdin',
        '--refresh-token-file',
        payload,
      ],
    ],
  ])('%s from an endless standard input: refused, exit 2', async (_, argv) => {
    const run = await svc(argv, endless());
    expect(run.stderr).toBe(over('standard input', true));
    expect(run.code).toBe(2);
  });
});
