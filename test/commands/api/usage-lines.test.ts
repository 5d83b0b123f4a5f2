/**
 * `svc api`'s refusals of its own command line give an example to run instead. Written as plain
 * `svc api …` they dropped the run's -p, --tenant and --base-url (session 25's open list): pasted,
 * the example ran against the active profile's server and tenant. They are the run's command
 * lines now (svcCommand), as every other advice line is.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';

const dirs = useTempDirs();
const TARGET = ['-p', 'ops', '--tenant', 'acme', '--base-url', 'http://127.0.0.1:9'];
const AS_GIVEN = 'svc -p ops --base-url http://127.0.0.1:9 --tenant acme';

describe('svc api: the examples of a refused command line carry the run’s target', () => {
  it.each<[string[], string]>([
    [[], `error: svc api needs a path, e.g. ${AS_GIVEN} api /v1/me\n`],
    [['post'], `error: svc api post needs a path, e.g. ${AS_GIVEN} api POST /v1/me\n`],
    [
      ['GTE'],
      `error: unknown HTTP method "GTE" (did you mean GET?) and no path; e.g. ${AS_GIVEN} api GET /v1/me\n`,
    ],
    [
      ['-X', 'POST', '/v1/roles'],
      `error: svc api takes the method as its first word, not with -X; e.g. ${AS_GIVEN} api POST /v1/roles\n`,
    ],
    [
      ['--request', 'PSOT', '/v1/me'],
      `error: unknown HTTP method "PSOT" (did you mean POST?), and svc api takes the method as its first word, not with --request; e.g. ${AS_GIVEN} api POST /v1/me\n`,
    ],
    [
      ['-X', 'FETCH', '/v1/me'],
      `error: unknown HTTP method "FETCH", and svc api takes the method as its first word, not with -X; use one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, e.g. ${AS_GIVEN} api GET /v1/me\n`,
    ],
    [
      ['/v1/roles', '-d', '@role.json'],
      `error: svc api takes a request body from --input or -f/-F fields, not -d/--data; e.g. ${AS_GIVEN} api POST /v1/roles --input role.json (--input - reads standard input), or give each field with -f key=value or -F key=JSON\n`,
    ],
    [[''], `error: PATH must not be empty; e.g. ${AS_GIVEN} api /v1/me\n`],
    [
      ['/v1/roles', '--input', '-'],
      `error: --input sends a body: name the method first, e.g. ${AS_GIVEN} api POST /v1/roles --input -\n`,
    ],
  ])('svc api %j: exit 2, the example with -p, --tenant and --base-url', async (argv, stderr) => {
    const env = dirs();
    expect(
      (await runInProcess(['-p', 'ops', 'config', 'set', 'base_url', 'http://127.0.0.1:8'], env)).code,
    ).toBe(0);
    expect(await runInProcess([...TARGET, 'api', ...argv], env)).toEqual({ code: 2, stdout: '', stderr });
  });

  it('a profile from SVC_PROFILE is not repeated (the pasted line reads it again); a bare run gets a bare line', async () => {
    const env = { ...dirs(), SVC_PROFILE: 'ops' };
    expect(await runInProcess(['api', 'GTE'], env)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown HTTP method "GTE" (did you mean GET?) and no path; e.g. svc api GET /v1/me\n',
    });
  });

  it('a profile that does not exist is repeated as given (the pasted line then says so)', async () => {
    expect(await runInProcess(['-p', 'nosuch', 'api', 'GTE'], dirs())).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: unknown HTTP method "GTE" (did you mean GET?) and no path; e.g. svc -p nosuch api GET /v1/me\n',
    });
  });
});
