/**
 * --debug shows a response's URL-carrying headers (Location, Content-Location, Link, Refresh)
 * with their secret query values masked by the request line's rule (src/http/redact.ts): a
 * redirect can carry an authorization code, a device code or a `?token=` that has no credential
 * shape (review s14, secrets 1).
 */
import { describe, expect, it } from 'vitest';
import { MASK, redactHeader } from '../../src/http/redact.js';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { answers, useHostileServer } from '../helpers/hostile.js';

const dirs = useTempDirs();
const server = useHostileServer();
const CODE = 'LYH1haTdQ0pXr8x1zDET-54w';
const TOKEN = 'SameOriginRedirTok999';

describe('URL headers in the --debug trace', () => {
  it.each([
    [
      'location',
      `http://127.0.0.1:39999/callback?code=${CODE}&state=st12345678&iss=http%3A%2F%2F127.0.0.1%3A1`,
      `http://127.0.0.1:39999/callback?code=${MASK}&state=${MASK}&iss=http%3A%2F%2F127.0.0.1%3A1`,
    ],
    ['location', `/v1/me?token=${TOKEN}&page=2`, `/v1/me?token=${MASK}&page=2`],
    ['Location', `?device_code=${CODE}`, `?device_code=${MASK}`],
    ['location', `/cb#access_token=${TOKEN}`, `/cb#${MASK}`],
    ['location', 'https://u:pw@example.com/x', `https://${MASK}:${MASK}@example.com/x`],
    ['location', '/v1/roles?page=2', '/v1/roles?page=2'],
    ['content-location', `/v1/me?api_key=${TOKEN}`, `/v1/me?api_key=${MASK}`],
    [
      'link',
      `</v1/roles?cursor=c1&token=${TOKEN}>; rel="next", </v1/roles?cursor=c0>; rel="prev"`,
      `</v1/roles?cursor=c1&token=${MASK}>; rel="next", </v1/roles?cursor=c0>; rel="prev"`,
    ],
    ['refresh', `0; url=/v1/me?token=${TOKEN}`, `0; url=/v1/me?token=${MASK}`],
    ['refresh', '5', '5'],
    // A servlet container's URL-rewritten session, a path parameter (review15 R15-3).
    ['location', '/v1/me;jsessionid=SESS_SECRET_4', `/v1/me;jsessionid=${MASK}`],
    ['location', `/a;token=${TOKEN};v=2/b;v=3?page=2`, `/a;token=${MASK};v=2/b;v=3?page=2`],
    ['location', '/a;PHPSESSID=abc/b', `/a;PHPSESSID=${MASK}/b`],
  ])('%s: %s', (name, value, expected) => {
    expect(redactHeader(name, value)).toBe(expected);
  });

  it('svc --debug api on a redirect carrying a code and a token shows neither', async () => {
    const s = await server();
    s.answer((req, res, received, hit) =>
      answers.raw(307, '', undefined, {
        location: `/v1/me?token=${TOKEN}`,
        link: `<http://127.0.0.1:1/callback?code=${CODE}&state=st12345678>; rel="next"`,
      })(req, res, received, hit),
    );
    const run = await runInProcess(['--debug', 'api', 'GET', '/redir-same'], {
      ...dirs(),
      NO_COLOR: '1',
      SVC_BASE_URL: s.url,
      SVC_TOKEN: 'tok_debug_trace_0123456789',
      SVC_MAX_RETRIES: '0',
    });
    expect(run.stderr).toContain(`< location: /v1/me?token=${MASK}\n`);
    expect(run.stderr).toContain(
      `< link: <http://127.0.0.1:1/callback?code=${MASK}&state=${MASK}>; rel="next"\n`,
    );
    expect(run.stderr).not.toContain(TOKEN);
    expect(run.stderr).not.toContain(CODE);
  });

  it('a same-origin redirect carrying a session in its path: neither the trace nor the error shows it (review15 R15-3)', async () => {
    const s = await server();
    s.answer(answers.raw(307, '{}', 'application/json', { location: '/v1/me;jsessionid=SESS_SECRET_4' }));
    const env = {
      ...dirs(),
      NO_COLOR: '1',
      SVC_BASE_URL: s.url,
      SVC_TOKEN: 'tok_debug_trace_0123456789',
      SVC_MAX_RETRIES: '0',
    };
    const debug = await runInProcess(['--debug', 'api', 'GET', '/v1/d'], env);
    expect(debug.stderr).toContain(`< location: /v1/me;jsessionid=${MASK}\n`);
    const plain = await runInProcess(['api', 'GET', '/v1/d'], env);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe(
      'error: the server answered 307 (a redirect to /v1/me on the same server) to GET /v1/d; svc never follows redirects, so nothing was sent there; ' +
        "if the API is under another path on this server, put that prefix (not the path of one request) in the base URL (--base-url, SVC_BASE_URL or `svc config set base_url`); otherwise report the redirect to the server's operator\n",
    );
    const json = await runInProcess(['api', 'GET', '/v1/d', '--json'], env);
    for (const run of [debug, plain, json]) expect(run.stderr).not.toContain('SESS_SECRET');
  });
});
