/**
 * curl's flags given to svc api (session 17, closing list): `--request POST` got commander's plain
 * "unknown option" where -X got the rule and the command svc reads, and so did curl's body flags
 * (-d/--data, --data-raw, --data-binary). Each is refused with the command svc takes instead, the
 * body's value never repeated (it may hold a secret); nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/context.js';

describe('svc api --request METHOD: as -X, the command svc reads', () => {
  const rule = 'svc api takes the method as its first word, not with --request';
  it.each<[string[], string]>([
    [['api', '--request', 'POST', '/v1/roles'], `error: ${rule}; e.g. svc api POST /v1/roles\n`],
    [['api', '--request=delete', '/v1/roles/r 1'], `error: ${rule}; e.g. svc api DELETE '/v1/roles/r 1'\n`],
    [
      ['api', '--request', 'PSOT', '/v1/me'],
      `error: unknown HTTP method "PSOT" (did you mean POST?), and ${rule}; e.g. svc api POST /v1/me\n`,
    ],
  ])('svc %j: exit 2, nothing sent', async (argv, stderr) => {
    expect(await runInProcess(argv, {})).toEqual({ code: 2, stdout: '', stderr });
  });
});

describe("svc api -d BODY (curl's body flags): --input or -f/-F instead, the value not repeated", () => {
  const body = (flag: string) =>
    `error: svc api takes a request body from --input or -f/-F fields, not ${flag}`;
  const fields = '(--input - reads standard input), or give each field with -f key=value or -F key=JSON';
  it.each<[string[], string]>([
    [
      ['api', 'POST', '/v1/roles', '-d', '{"name":"ops","secret":"s3cr3t-value"}'],
      `${body('-d/--data')}; e.g. svc api POST /v1/roles --input FILE ${fields}\n`,
    ],
    [
      ['api', '/v1/roles', '--data', '@role.json'],
      `${body('-d/--data')}; e.g. svc api POST /v1/roles --input role.json ${fields}\n`,
    ],
    [
      ['api', 'PATCH', '/v1/roles/r1', '--data-raw', 'name=ops'],
      `${body('--data-raw')}; e.g. svc api PATCH /v1/roles/r1 --input FILE ${fields}\n`,
    ],
    [
      ['api', 'POST', '/v1/roles', '--data-binary', '@-'],
      `${body('--data-binary')}; e.g. svc api POST /v1/roles --input - ${fields}\n`,
    ],
  ])('svc %j: exit 2, nothing sent', async (argv, stderr) => {
    const r = await runInProcess(argv, {});
    expect(r).toEqual({ code: 2, stdout: '', stderr });
    expect(r.stderr).not.toContain('s3cr3t');
  });

  it('none of them is an option the help lists', async () => {
    const r = await runInProcess(['api', '--help'], {});
    expect(r.stdout).not.toMatch(/--request|--data|-d,/);
  });
});
