// Under a `ulimit -v` below what V8 reserves for undici's WebAssembly HTTP parser, every request
// failed as "cannot reach … is the server running?" (attack21 F8): the cause and the fix instead.
import { describe, expect, it } from 'vitest';
import { addressSpaceFailure, bulkRunShortfall } from '../../src/http/address-space.js';
import { ConnectionError } from '../../src/http/errors.js';
import { renderError } from '../../src/output/errors.js';
import { addressSpaceLimitKiB } from '../../src/system/system-errors.js';

const v8Words = 'WebAssembly.Instance(): Out of memory: Cannot allocate Wasm memory for new instance';

describe('the HTTP client out of address space', () => {
  it('names the limit and the fix, says nothing was sent, exit 1, and is not tried again', () => {
    const error = addressSpaceFailure(new RangeError(v8Words));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({
      code: 'address_space_limit',
      exitCode: 1,
      mayHaveArrived: false,
      retryable: false,
    });
    const limit = addressSpaceLimitKiB();
    expect(renderError(error, { json: false, debug: false })).toBe(
      `error: svc's HTTP client could not reserve its memory: it needs about 12 GB of virtual address space, and ${
        limit === undefined
          ? 'a limit on it (ulimit -v) is lower'
          : `this process may use ${limit.toLocaleString('en')} KiB (ulimit -v)`
      }; nothing was sent; raise the limit for svc (\`ulimit -v unlimited\`, or at least \`ulimit -v 12000000\`: 12,000,000 KiB), then run the command again\n`,
    );
  });

  it('is found as the cause of what undici throws, and by V8’s other wording', () => {
    expect(
      addressSpaceFailure(new TypeError('fetch failed', { cause: new RangeError(v8Words) })),
    ).toBeDefined();
    expect(addressSpaceFailure(new RangeError('WebAssembly.Memory(): Out of memory'))).toBeDefined();
  });

  it('a network failure is not it', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(addressSpaceFailure(refused)).toBeUndefined();
    expect(addressSpaceFailure(new RangeError('Invalid array length'))).toBeUndefined();
  });
});

// A bulk run under a limit in the window where it was killed by SIGABRT once it held its journal's
// lock (review21c F3): refused first, in the same words; the spawned case is in
// test/e2e/odd-environment.test.ts.
describe('a bulk run that will not fit in the address space', () => {
  it.each([
    ['20.18.0', 11_500_000, '12', 12_000_000, '11,500,000'],
    ['24.1.0', 1_450_000, '1.6', 1_600_000, '1,450,000'],
  ])(
    'Node %s under ulimit -v %i: refused with the need and the fix, exit 1',
    (node, limit, gb, needed, shown) => {
      const error = bulkRunShortfall(limit, node);
      expect(error).toMatchObject({ code: 'address_space_limit', exitCode: 1 });
      expect(renderError(error, { json: false, debug: false })).toBe(
        `error: this bulk run needs about ${gb} GB of virtual address space, and this process may use ${shown} KiB (ulimit -v); nothing was changed; raise the limit for svc (\`ulimit -v unlimited\`, or at least \`ulimit -v ${needed}\`: ${needed.toLocaleString('en')} KiB), then run the command again\n`,
      );
    },
  );

  it.each([
    ['20.18.0', 12_000_000, 'at the need'],
    ['24.1.0', 1_600_000, 'at the need'],
    ['20.18.0', undefined, 'no limit'],
    ['22.11.0', 1_000_000, 'a Node not measured'],
    ['25.0.0', 1_000_000, 'a Node not measured'],
  ] as Array<[string, number | undefined, string]>)('Node %s, limit %s (%s): not refused', (node, limit) => {
    expect(bulkRunShortfall(limit, node)).toBeUndefined();
  });
});
