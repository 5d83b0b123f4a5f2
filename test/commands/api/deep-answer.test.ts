/**
 * `svc api` against a server whose answer nests thousands of levels deep (review s11, leaks): the
 * secrets registry walked it by recursion and overflowed the stack ("this is a bug in svc",
 * exit 1). The answer is printed as it came, exit 0.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';

const DEPTH = 5_000;
const dirs = useTempDirs();
let server: Server;
let url = '';
beforeAll(async () => {
  server = createServer((request, response) => {
    // /v1/error: an error answer whose details nest as deep (review s11 f: a stack trace).
    const error = request.url === '/v1/error';
    response.writeHead(error ? 400 : 200, { 'content-type': 'application/json' });
    const deep = `${'['.repeat(DEPTH)}{"token":"deep-secret-value"}${']'.repeat(DEPTH)}`;
    response.end(error ? `{"error":{"code":"bad","message":"deep","details":${deep}}}` : deep);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it(`prints an answer ${DEPTH} levels deep as it came, and --debug masks the secret in it`, async () => {
  const env = { ...dirs(), SVC_BASE_URL: url, SVC_TOKEN: 'test-token-0123456789', NO_COLOR: '1' };
  const plain = await runInProcess(['api', '/v1/deep'], env);
  expect([plain.code, plain.stderr]).toEqual([0, '']);
  expect(plain.stdout.replace(/\s/g, '')).toBe(
    `${'['.repeat(DEPTH)}{"token":"deep-secret-value"}${']'.repeat(DEPTH)}`,
  );
  const traced = await runInProcess(['--debug', 'api', '/v1/deep'], env);
  expect(traced.code).toBe(0);
  expect(traced.stderr).not.toContain('deep-secret-value');
});

it(`says an error answer ${DEPTH} levels deep in one line, without a stack trace or the secret in it`, async () => {
  const env = { ...dirs(), SVC_BASE_URL: url, SVC_TOKEN: 'test-token-0123456789', NO_COLOR: '1' };
  for (const argv of [
    ['api', '/v1/error'],
    ['--json', 'api', '/v1/error'],
    ['--debug', 'api', '/v1/error'],
  ]) {
    const r = await runInProcess(argv, env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toContain('RangeError');
    expect(r.stderr).not.toContain('deep-secret-value');
    expect(r.stderr).not.toMatch(/^\s+at /m);
  }
});
