/**
 * A `*-file` option given the secret itself (`--secret-file "$WEBHOOK_SECRET"` in CI) is not
 * repeated in its "cannot read" error, which reaches a log where the command line is not shown
 * (attack25b L1). A missing file that looks like a path is named as before.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { useTempDir } from '../helpers/temp.js';

const dir = useTempDir('svc-secret-as-path-', () => writeFileSync(payload, '{"id":"evt_1"}'));
const dirs = useTempDirs();
const payload = join(dir, 'body.json');
// Nothing listens here: a request would be exit 1, not the refusal tested.
const svc = (args: string[], json = false) =>
  runInProcess([...(json ? ['--json'] : []), ...args], {
    ...dirs(),
    NO_COLOR: '1',
    SVC_BASE_URL: 'http://127.0.0.1:9',
  });
const SECRET = 'Xk29fLmQ7pR4tVw8bC3';
const notShown = (flag: string) =>
  `error: cannot read ${flag} (its value not shown: it looks like a secret, not a path): no such file; ` +
  `${flag} takes the path of a file that holds the secret; if that was the secret, it is in your shell history and the process list now: rotate it\n`;

describe('a secret given where the path of its file goes', () => {
  it.each([
    [
      '--secret-file',
      ['webhooks', 'sign', '--secret-file', SECRET, '--payload', payload, '--at', '1700000000'],
    ],
    [
      '--secret-file',
      ['webhooks', 'verify', '--secret-file', SECRET, '--payload', payload, '--header', 't=1,v1=ab'],
    ],
    [
      '--client-secret-file',
      [
        'oauth',
        'token',
        '--grant-type',
        'refresh_token',
        '--client-id',
        'cli_1',
        '--client-secret-file',
        SECRET,
        '--refresh-token-stdin',
      ],
    ],
    [
      '--refresh-token-file',
      [
        'oauth',
        'token',
        '--grant-type',
        'refresh_token',
        '--client-id',
        'cli_1',
        '--refresh-token-file',
        SECRET,
      ],
    ],
  ])('%s: the error does not repeat it (exit 2)', async (flag, argv) => {
    const r = await svc(argv);
    expect(r).toEqual({ code: 2, stdout: '', stderr: notShown(flag) });
  });

  it('not in --json either, and a JWT with dots is not shown', async () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJlMTIz';
    for (const value of [SECRET, jwt]) {
      const r = await svc(
        ['webhooks', 'sign', '--secret-file', value, '--payload', payload, '--at', '1700000000'],
        true,
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('(its value not shown: it looks like a secret, not a path)');
      expect(r.stderr).not.toContain(value.slice(0, 8));
    }
  });

  it('a missing file that looks like a path is named as before', async () => {
    for (const path of ['secret.txt', join(dir, 'missing', 'webhook'), 'whsec']) {
      const r = await svc([
        'webhooks',
        'sign',
        '--secret-file',
        path,
        '--payload',
        payload,
        '--at',
        '1700000000',
      ]);
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: cannot read --secret-file ${path}: no such file\n`,
      });
    }
  });
});
