/**
 * sig13 finding 9: `listen --forward-to http://user:password@…` printed the password on stderr and
 * then forwarded without it; `--public-url` with a password showed it in the --debug trace. Both
 * are refused at parse time, as --base-url is, without repeating the value: nothing starts, no
 * webhook is touched. And a --forward-to with a secret in its query (`?token=…`) is used as given
 * but shown, in the start line, with it masked, as every URL used as a label is (review s14, secrets 4).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, startInProcess, useTempDirs } from '../../helpers/context.js';
import { useTempDir } from '../../helpers/temp.js';

const env = useTempDirs();
const tmp = useTempDir('svc-listen-userinfo-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const secretFile = join(tmp, 'whsec.txt');

const FORWARD =
  'error: --forward-to must not hold a user name or password; forwards carry no credentials; let your app take them from this listener (e.g. on 127.0.0.1) without basic auth\n';

// Written before the tests, not when the file is collected (test/helpers/temp.ts).
beforeAll(() => {
  writeFileSync(secretFile, 'whsec_test_secret_123456');
});

describe('svc webhooks listen: a URL flag with a user name or password', () => {
  it.each<[string, string[], string]>([
    [
      '--forward-to user:password@',
      ['--secret-file', secretFile, '--forward-to', 'http://alice:s3cr3tpassw0rd@127.0.0.1:4981/cred'],
      FORWARD,
    ],
    [
      '--forward-to user@',
      ['--secret-file', secretFile, '--forward-to', 'https://alice@app.example.com/hook'],
      FORWARD,
    ],
    [
      '--public-url user:password@',
      ['--webhook', 'wh_1', '--public-url', 'https://bob:tunnelpassw0rd@tunnel.example/hook'],
      'error: --public-url must not hold a user name or password; the platform sends no credentials to a webhook URL; the signature is what proves a delivery\n',
    ],
    [
      '--forward-to ftp://user:password@',
      ['--secret-file', secretFile, '--forward-to', 'ftp://carol:ftppassw0rd@files.example/x'],
      'error: --forward-to must be an http or https URL, got "ftp://[redacted]:[redacted]@files.example/x"\n',
    ],
  ])('refuses %s with exit 2, the value not repeated', async (_, args, stderr) => {
    const run = await runInProcess(['webhooks', 'listen', '--port', '0', ...args], env());
    expect(run).toEqual({ code: 2, stdout: '', stderr });
    expect(run.stderr).not.toMatch(/passw0rd|alice|bob|carol/);
  });
});

describe('svc webhooks listen: a --forward-to with a secret in its query', () => {
  it('is named in the start line with its secret query values masked', async () => {
    const run = startInProcess(
      [
        'webhooks',
        'listen',
        '--port',
        '0',
        '--secret-file',
        secretFile,
        '--forward-to',
        'http://127.0.0.1:47011/in?token=FwdTok123456&api_key=abcdefgh12345&v=2',
      ],
      { ...env(), NO_COLOR: '1' },
    );
    await run.waitForStderr(/Ctrl-C stops/);
    run.interrupt();
    await run.done;
    expect(run.stderr()).toContain(
      'forwarding valid deliveries to http://127.0.0.1:47011/in?token=[redacted]&api_key=[redacted]&v=2; Ctrl-C stops',
    );
    expect(run.stderr()).not.toMatch(/FwdTok123456|abcdefgh12345/);
  });
});
