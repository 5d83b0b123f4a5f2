/**
 * `svc api` and an answer that is not UTF-8 (review s13 api13, finding 5): a binary body or
 * Latin-1 text was printed with U+FFFD in place of its bytes, exit 0, though the help says "as it
 * came". To a file or a pipe the bytes go as they came; a terminal gets the text and a warning.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, runInProcessBytes, useTempDirs } from '../../helpers/context.js';
import { hostileEnv, useHostileServer } from '../../helpers/hostile.js';

const hostile = useHostileServer();
const dirs = useTempDirs();

const BINARY = Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe]);
const LATIN1 = Buffer.from('café £100\n', 'latin1');

async function server() {
  const s = await hostile();
  s.answer((req, res) => {
    const latin = req.url === '/v1/latin1';
    res.writeHead(200, {
      'content-type': latin ? 'text/plain; charset=iso-8859-1' : 'application/octet-stream',
    });
    res.end(latin ? LATIN1 : BINARY);
  });
  return { ...dirs(), ...hostileEnv(s) };
}

describe('svc api: a body that is not UTF-8', () => {
  it.each([
    ['/v1/binary', BINARY],
    ['/v1/latin1', LATIN1],
  ])('%s is written to a pipe as its bytes, nothing added', async (path, bytes) => {
    const env = await server();
    const r = await runInProcessBytes(['api', path], env);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout.toString('hex')).toBe(bytes.toString('hex'));
  });

  it('on a terminal, the text is shown with a warning naming the first byte that is not UTF-8', async () => {
    const env = await server();
    const r = await runInProcess(['api', '/v1/latin1'], env, { tty: { stdout: true } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'warning: the body is not UTF-8 (byte 0xE9 at offset 3): shown with U+FFFD for such bytes; redirect stdout to a file for the bytes as they came\n',
    );
    expect(r.stdout).toBe('caf\uFFFD \uFFFD100\n');
  });
});

describe('svc api: an error answer that is not UTF-8 (review s13 http #4)', () => {
  async function failing() {
    const s = await hostile();
    s.answer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=iso-8859-1' });
      res.end(LATIN1);
    });
    return { ...dirs(), ...hostileEnv(s) };
  }

  it('is written to a pipe as its bytes, exit 5', async () => {
    const r = await runInProcessBytes(['api', '/v1/err'], await failing());
    expect(r.code).toBe(5);
    expect(r.stdout.toString('hex')).toBe(LATIN1.toString('hex'));
  });

  it('on a terminal, the text is shown with the same warning', async () => {
    const r = await runInProcess(['api', '/v1/err'], await failing(), { tty: { stdout: true } });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      /^warning: the body is not UTF-8 \(byte 0xE9 at offset 3\): shown with U\+FFFD for such bytes; redirect stdout to a file for the bytes as they came\n/,
    );
    expect(r.stdout).toBe('caf\uFFFD \uFFFD100\n');
  });
});
