/**
 * A body or file input (`--payload`, `--input`, `--data-file`, `-F @file`, an access file) is read
 * at most INPUT_LIMIT bytes deep (src/system/input.ts): `webhooks sign --payload /dev/zero` grew
 * until memory ran out. Past the limit: one line naming the input, the limit and the fix, exit 2,
 * nothing sent (SVC_BASE_URL leads nowhere: a request would end in a network error, exit 7).
 * An endless source is a stream here, and a file over the limit a sparse one: nothing large is
 * allocated.
 */
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { INPUT_LIMIT, PLAN_INPUT_LIMIT } from '../../src/system/input.js';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { useTempDir } from '../helpers/temp.js';

const dir = useTempDir('svc-body-limit-', () => {
  writeFileSync(secret, 'whsec_abcdefghijklmnopqrstuvwxyz012345', { mode: 0o600 });
  writeFileSync(big, '', { mode: 0o600 });
  truncateSync(big, INPUT_LIMIT + 1);
});
const dirs = useTempDirs();
const T = 1_700_000_000;
const secret = join(dir, 'wh.secret');
/** A sparse file one byte over the limit: its size is all that is read. */
const big = join(dir, 'big.json');
const svc = (args: string[], stdin?: Readable) =>
  runInProcess(
    args,
    {
      ...dirs(),
      NO_COLOR: '1',
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_TOKEN: 'svc_at_abcdefghijklmnopqrstuv',
      SVC_TENANT: 'acme-treasury',
    },
    { now: T * 1000, stdin },
  );
const over = (what: string, piped: boolean) =>
  `error: ${what} holds more than 16 MiB (16777216 bytes), the most svc reads from one input; ` +
  (piped
    ? 'check what is piped in (a body is a file or a pipe that ends)\n'
    : 'check the path (a device such as /dev/zero never ends)\n');

/** A stream that never ends (`< /dev/zero`), in 1 MiB chunks of one shared buffer. */
const endless = () => {
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  return new Readable({
    read() {
      this.push(chunk);
    },
  });
};

describe('body inputs are read at most INPUT_LIMIT bytes deep', () => {
  it.each([
    [
      'webhooks sign --payload',
      ['webhooks', 'sign', '--secret-file', secret, '--at', String(T), '--payload'],
      '--payload',
    ],
    [
      'webhooks verify --payload',
      ['webhooks', 'verify', '--secret-file', secret, '--header', `t=${T},v1=${'0'.repeat(64)}`, '--payload'],
      '--payload',
    ],
    ['api --input', ['api', 'POST', '/v1/webhooks', '--input'], '--input'],
    ['records create --data-file', ['records', 'create', 'exceptions', '--data-file'], '--data-file'],
  ])('%s: a file over the limit, and an endless standard input, refused, exit 2', async (_, argv, flag) => {
    const file = await svc([...argv, big]);
    expect([file.stderr, file.code, file.stdout]).toEqual([over(`${flag} ${big}`, false), 2, '']);
    const piped = await svc([...argv, '-'], endless());
    expect([piped.stderr, piped.code, piped.stdout]).toEqual([over(`${flag} -`, true), 2, '']);
  });

  // Review s15b: the 16 MiB cap refused svc's own saved plan of 25,000 changes (67 MB). An access
  // file or a saved plan is read up to PLAN_INPUT_LIMIT; past it, refused the same way.
  it('svc apply PLAN and svc plan -f read past 16 MiB, up to PLAN_INPUT_LIMIT', async () => {
    const padded = join(dir, 'padded.plan.json');
    writeFileSync(padded, `{}${' '.repeat(INPUT_LIMIT)}`, { mode: 0o600 });
    const read = await svc(['apply', padded, '--yes']);
    expect(read.code).toBe(2);
    expect(read.stderr).not.toContain('the most svc reads');
    const huge = join(dir, 'huge.yaml');
    writeFileSync(huge, '', { mode: 0o600 });
    truncateSync(huge, PLAN_INPUT_LIMIT + 1);
    for (const [argv, flag] of [
      [['plan', '-f', huge], '-f'],
      [['apply', huge, '--yes'], 'PLAN'],
    ] as const) {
      const r = await svc([...argv]);
      expect([r.stderr, r.code]).toEqual([
        `error: ${flag} ${huge} holds more than 256 MiB (268435456 bytes), the most svc reads from one input; check the path (a device such as /dev/zero never ends)\n`,
        2,
      ]);
    }
  });

  it('api -F key=@file over the limit: refused, exit 2', async () => {
    const run = await svc(['api', 'POST', '/v1/webhooks', '-F', `url=@${big}`]);
    expect([run.stderr, run.code]).toEqual([over(`-F ${big}`, false), 2]);
  });

  it('a payload of exactly the limit is read and signed', async () => {
    const exact = join(dir, 'exact.json');
    writeFileSync(exact, '', { mode: 0o600 });
    truncateSync(exact, INPUT_LIMIT);
    const run = await svc([
      'webhooks',
      'sign',
      '--secret-file',
      secret,
      '--at',
      String(T),
      '--payload',
      exact,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^t=1700000000,v1=[0-9a-f]{64}\n$/);
  });
});
