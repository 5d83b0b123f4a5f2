/**
 * A malformed `svc api -H` is quoted in its error, but not the value of a secret header
 * (`X-Api-Key=…`, `Cookie …`): masked as --debug masks a well-formed one, whatever its shape
 * (review s14, secrets 2). Refused before anything is sent (exit 2).
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';

const dirs = useTempDirs();
const run = (header: string) =>
  runInProcess(['api', 'GET', '/v1/me', '-H', header], {
    ...dirs(),
    NO_COLOR: '1',
    SVC_BASE_URL: 'http://127.0.0.1:9',
    SVC_TOKEN: 'tok_0123456789abcdef',
  });

describe('svc api -H that is not Name: value', () => {
  it.each([
    ['X-Api-Key=plainKeyNoShape12345678', '"X-Api-Key=[redacted]"'],
    ['X-Api-Key plainKeyNoShape12345678', '"X-Api-Key [redacted]"'],
    ['X-Api-Key: plain\nKeyNoShape12345678', '"X-Api-Key: [redacted]"'],
    ['Cookie = session=plainCookie123456', '"Cookie = [redacted]"'],
    ['X-Auth-Token=hunter2hunter2', '"X-Auth-Token=[redacted]"'],
    ['Authorization=Bearer plainNoShape123456', '"Authorization=[redacted]"'],
    // Not a secret header: quoted whole, so the typo can be seen.
    ['X-Request-Id=req_1', '"X-Request-Id=req_1"'],
    ['X-Api-Key', '"X-Api-Key"'],
  ])('%j: %s', async (header, shown) => {
    expect(await run(header)).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: -H takes 'Name: value', got ${shown}\n`,
    });
  });
});
