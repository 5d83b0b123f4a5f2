/**
 * A misspelt HTTP method gets "did you mean", as every other typo does (journey15 F6): the shared
 * rule, where a swap of two letters (GTE, PSOT) is one typo, not two.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/context.js';

const METHODS = 'use one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS';

describe('svc api with a misspelt method', () => {
  it.each<[string[], string]>([
    [['api', 'GTE', '/v1/roles'], `error: unknown HTTP method "GTE" (did you mean GET?); ${METHODS}\n`],
    [['api', 'PSOT', '/v1/roles'], `error: unknown HTTP method "PSOT" (did you mean POST?); ${METHODS}\n`],
    [['api', 'pacth', '/v1/roles'], `error: unknown HTTP method "pacth" (did you mean PATCH?); ${METHODS}\n`],
    [
      ['api', 'DELET', '/v1/roles/r'],
      `error: unknown HTTP method "DELET" (did you mean DELETE?); ${METHODS}\n`,
    ],
    // nothing near: no guess
    [['api', 'FETCH', '/v1/me'], `error: unknown HTTP method "FETCH"; ${METHODS}\n`],
  ])('svc %j: exit 2, the method meant', async (argv, stderr) => {
    expect(await runInProcess(argv, {})).toEqual({ code: 2, stdout: '', stderr });
  });
});

describe('svc api with a misspelt method and no path (review16b B8)', () => {
  it.each<[string, string]>([
    ['GTE', 'GET'],
    ['PSOT', 'POST'],
    ['gte', 'GET'],
    ['DELET', 'DELETE'],
  ])('svc api %s: the method meant, exit 2, nothing sent (not GET /%s)', async (word, meant) => {
    expect(await runInProcess(['api', word], {})).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: unknown HTTP method "${word}" (did you mean ${meant}?) and no path; e.g. svc api ${meant} /v1/me\n`,
    });
  });

  it('a word near no method is still a path (svc api roles is GET /roles)', async () => {
    const r = await runInProcess(['api', 'roles'], {});
    expect(r.stderr).not.toContain('unknown HTTP method');
  });
});

describe('svc api -X METHOD (curl and gh give the method so; svc takes it first): the command svc reads', () => {
  const rule = 'svc api takes the method as its first word, not with -X';
  it.each<[string[], string]>([
    [
      ['api', '-X', 'PSOT', '/v1/me'],
      `error: unknown HTTP method "PSOT" (did you mean POST?), and ${rule}; e.g. svc api POST /v1/me\n`,
    ],
    [['api', '-XPOST', '/v1/roles'], `error: ${rule}; e.g. svc api POST /v1/roles\n`],
    [['api', '--method', 'delete', '/v1/roles/r 1'], `error: ${rule}; e.g. svc api DELETE '/v1/roles/r 1'\n`],
    [
      ['api', '-X', 'GTE'],
      `error: unknown HTTP method "GTE" (did you mean GET?), and ${rule}; e.g. svc api GET /v1/me\n`,
    ],
    [
      ['api', '-X', 'FETCH', '/v1/me'],
      `error: unknown HTTP method "FETCH", and ${rule}; use one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, e.g. svc api GET /v1/me\n`,
    ],
  ])('svc %j: exit 2, nothing sent', async (argv, stderr) => {
    expect(await runInProcess(argv, {})).toEqual({ code: 2, stdout: '', stderr });
  });

  it('-X is no option the help lists: its text says the method is the first word', async () => {
    const r = await runInProcess(['api', '--help'], {});
    expect(r.stdout).not.toMatch(/^ +-X, --method/m);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      'a method is the first word (svc api POST PATH), not -X METHOD.',
    );
  });
});
