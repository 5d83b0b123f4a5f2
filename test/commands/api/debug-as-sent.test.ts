/**
 * `svc --debug api` traces each body as it was sent or came, masked (s11 review-a 2 and 7): an
 * answer that does not parse as it stands (a byte-order mark first, bytes after the JSON) printed
 * its tokens whole; a body sent as given was traced re-encoded (a key given twice dropped, 1.10
 * shown as 1.1).
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { answers, hostileEnv, useHostileServer } from '../../helpers/hostile.js';

const dirs = useTempDirs();
const server = useHostileServer();
const TOKEN_ANSWER =
  '{"access_token":"eyJleakedtoken123456","refresh_token":"rt_leaked_abcdef","token_type":"Bearer"}';

async function traced(answer: string, contentType: string, argv: string[], stdin?: string) {
  const s = await server();
  s.answer(answers.raw(200, answer, contentType));
  const r = await runInProcess(
    ['--debug', 'api', ...argv],
    { ...dirs(), ...hostileEnv(s) },
    stdin === undefined ? {} : { stdin },
  );
  return { r, seen: s.seen.map((q) => q.body) };
}

describe('--debug: response bodies', () => {
  it.each([
    [
      'a byte-order mark first',
      `\ufeff${TOKEN_ANSWER}`,
      // Shown as an escape, as every invisible character from a server is on a terminal.
      `\\ufeff${TOKEN_ANSWER.replace(/"eyJ\w+"|"rt_\w+"/g, '"[redacted]"')}`,
    ],
    ['as it stands', TOKEN_ANSWER, TOKEN_ANSWER.replace(/"eyJ\w+"|"rt_\w+"/g, '"[redacted]"')],
  ])('a token answer with %s is masked field by field', async (_name, answer, shown) => {
    const { r } = await traced(answer, 'application/json', [
      'POST',
      '/v1/oauth/token/x',
      '-f',
      'grant_type=x',
    ]);
    expect(r.stderr).toContain(`\n< ${shown}\n`);
    expect(r.stderr).not.toContain('leaked');
  });

  it.each([
    ['bytes after the JSON', `${TOKEN_ANSWER}\n}`, 'application/json'],
    ['text', 'access_token=eyJleakedtoken123456 refresh_token=rt_leaked_abcdef', 'text/plain'],
    ['HTML', `<html><body>${TOKEN_ANSWER}</body></html>`, 'text/html'],
  ])('an answer that is not JSON (%s) is traced by its size only', async (_name, answer, type) => {
    const { r } = await traced(answer, type, ['GET', '/v1/x']);
    expect(r.stderr).not.toContain('leaked');
    expect(r.stderr).toMatch(
      new RegExp(`\\n< \\[${Buffer.byteLength(answer)} bytes not shown: not JSON[^\\]\\n]*\\]\\n`),
    );
  });
});

describe('--debug: a body sent as given', () => {
  it('is traced as sent, its secrets masked in place', async () => {
    const body =
      '{"client_secret":"S3cretValue99","a":1,"a":2,"f":1.10,"n":{"password":"Hunter2Hunter2","code":7}}';
    const { r, seen } = await traced('{}', 'application/json', ['PUT', '/v1/x', '--input', '-'], body);
    expect(seen).toEqual([body]);
    expect(r.stderr).toContain(
      '\n> {"client_secret":"[redacted]","a":1,"a":2,"f":1.10,"n":{"password":"[redacted]","code":"[redacted]"}}\n',
    );
    expect(r.stderr).not.toMatch(/S3cret|Hunter2/);
  });

  it('keeps an error code that sits beside a message', async () => {
    const answer = '{"error":{"code":"invalid_grant","message":"m"},"code":"c0de","error_description":"d"}';
    const { r } = await traced(answer, 'application/json', ['GET', '/v1/x']);
    expect(r.stderr).toContain(`\n< ${answer}\n`);
  });
});
