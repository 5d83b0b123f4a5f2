/**
 * `--secret-file -` to a command that returns a secret once (review16 R2): svc's readers of a
 * secret take `-` as standard input, so a file named `-` would be read back as stdin by the very
 * "try it" line svc printed. Refused before anything is sent, naming --show-secret; a path that
 * starts with `-` is printed as `./-…` in the lines svc gives to run. And `oauth create
 * --secret-file F --json` drops the server's "store it now" warning: svc stored it.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pathWord } from '../../src/system/shell-words.js';
import { ACME, requestCount, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-secret-dash-');
afterAll(() => rmSync(files, { recursive: true, force: true }));

const REFUSED =
  'error: --secret-file - is not standard output here: the secret goes to a new file; to print it, use --show-secret; for a file named -, write ./-\n';

describe('--secret-file - on a command that returns a secret once', () => {
  const commands: [string, string[]][] = [
    [
      'oauth create',
      [
        ...['oauth', 'create', '--name', 'dash', '--redirect-uri', 'http://127.0.0.1/callback'],
        ...['--scope', 'read:reconciliations'],
      ],
    ],
    ['oauth rotate-secret', ['oauth', 'rotate-secret', 'cli_0123', '--yes']],
    [
      'webhooks create',
      ['webhooks', 'create', '--url', 'https://d.example/x', '--event-type', 'exception.created'],
    ],
    ['webhooks rotate-secret', ['webhooks', 'rotate-secret', 'wh_0123']],
    [
      'tenants api-keys create',
      ['tenants', 'api-keys', 'create', ACME, '--kind', 'service_role', '--justification', 'dash test here'],
    ],
  ];
  for (const [name, argv] of commands) {
    it(`${name}: refused before anything is sent, naming --show-secret; no file named -`, async () => {
      const before = await requestCount(svc.sandbox());
      const r = await svc.run([...argv, '--secret-file', '-']);
      expect(r).toEqual({ code: 2, stdout: '', stderr: REFUSED });
      expect(await requestCount(svc.sandbox())).toBe(before);
      expect(existsSync(join(process.cwd(), '-'))).toBe(false);
    });
  }

  it('a path that starts with - is printed as ./-…, which no reader takes for stdin or a flag', () => {
    expect(pathWord('-')).toBe('./-');
    expect(pathWord('-x.secret')).toBe('./-x.secret');
    expect(pathWord('a b.secret')).toBe("'a b.secret'");
    expect(pathWord('/tmp/x.secret')).toBe('/tmp/x.secret');
  });

  it('oauth create --secret-file F --json: no "store it now" warning, the file named; the try it line quotes it', async () => {
    const file = join(files, 'with space.secret');
    const argv = [
      ...['oauth', 'create', '--name', 'dash-json', '--redirect-uri', 'http://127.0.0.1/callback'],
      ...['--scope', 'read:reconciliations', '--secret-file', file],
    ];
    const r = await svc.run([...argv, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.client_secret_file).toBe(file);
    expect(out).not.toHaveProperty('warning');
    expect(out).not.toHaveProperty('client_secret');

    const spaced = join(files, 'again secret');
    const again = await svc.run(argv.map((a) => (a === file ? spaced : a)));
    expect(again.code, again.stderr).toBe(0);
    const id = /client_id\s+(cli_\w+)/.exec(again.stdout)?.[1] ?? /(cli_\w+)/.exec(again.stderr)?.[1];
    expect(again.stderr).toContain(
      `try it: svc oauth authorize --client-id ${id} --client-secret-file '${spaced}'\n`,
    );
  });
});
