// Under a `ulimit -v` below what V8 reserves for undici's WebAssembly HTTP parser, every request
// failed as "cannot reach … is the server running?" (attack21 F8): the cause and the fix instead.
import { describe, expect, it } from 'vitest';
import { addressSpaceFailure } from '../../src/http/address-space.js';
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
