/**
 * One rule for every secret svc receives once (journey15 F4): an OAuth client secret was printed
 * unasked by `oauth create` and `oauth rotate-secret`, into a pipe or a CI log, while a webhook
 * signing secret and a service_role key need --secret-file or --show-secret. The client secret
 * now follows that rule (secret-destination.ts), refused before anything is sent: before the
 * confirmation on a terminal too, so nobody answers a question for a run that cannot go on.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useLostCreations } from '../../helpers/lossy-proxy.js';
import { createClient } from '../../helpers/oauth.js';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-client-secret-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
const lost = useLostCreations(svc.sandbox);
const CREATE = [
  ...['oauth', 'create', '--name', 'nofile', '--redirect-uri', 'https://x.example/cb'],
  ...['--scope', 'read:exceptions'],
];
const CREATE_REFUSED =
  'error: svc oauth create returns the client secret once: pass --secret-file PATH (or --show-secret to print it); ' +
  'the secret is shown only in this answer, and whoever holds it gets the tokens users approve for the client\n';
const ROTATE_REFUSED =
  'error: svc oauth rotate-secret returns the client secret once: pass --secret-file PATH (or --show-secret to print it); ' +
  'the secret is shown only in this answer, and whoever holds it gets the tokens users approve for the client\n';

describe('OAuth client secrets take --secret-file or --show-secret', () => {
  it('oauth create with neither: refused, nothing sent', async () => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(CREATE);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', CREATE_REFUSED]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('oauth create with neither and --json: refused the same way, as JSON on stderr', async () => {
    const r = await svc.run([...CREATE, '--json']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'usage',
        message:
          'svc oauth create returns the client secret once: pass --secret-file PATH (or --show-secret to print it)',
        exit_code: 2,
        hint: 'the secret is shown only in this answer, and whoever holds it gets the tokens users approve for the client',
      },
    });
  });

  it('oauth rotate-secret with neither: refused, the secret still the one it was', async () => {
    const client = await createClient(svc.sandbox());
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['oauth', 'rotate-secret', client.client_id, '--yes']);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', ROTATE_REFUSED]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('oauth rotate-secret on a terminal with neither: refused before its question is asked', async () => {
    const client = await createClient(svc.sandbox());
    // No scripted answer: a question asked would fail the run (scriptedPrompter).
    const r = await svc.run(['oauth', 'rotate-secret', client.client_id], { tty: true });
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', ROTATE_REFUSED]);
  });

  it('both: refused', async () => {
    const create = await svc.run([...CREATE, '--show-secret', '--secret-file', 'x.secret']);
    expect([create.code, create.stderr]).toEqual([
      2,
      'error: use --secret-file or --show-secret, not both\n',
    ]);
    const rotate = await svc.run([
      'oauth',
      'rotate-secret',
      'cli_0',
      '--yes',
      '--show-secret',
      '--secret-file',
      'x',
    ]);
    expect([rotate.code, rotate.stderr]).toEqual([
      2,
      'error: use --secret-file or --show-secret, not both\n',
    ]);
  });

  it('--show-secret prints it, in a pipe and with --json', async () => {
    const create = await svc.run([...CREATE, '--show-secret']);
    expect(create.code, create.stderr).toBe(0);
    expect(create.stdout).toMatch(/^client secret\tsvc_cs_\S+$/m);
    const id = /^client id\t(\S+)$/m.exec(create.stdout)![1]!;
    const rotate = await svc.run(['oauth', 'rotate-secret', id, '--yes', '--show-secret', '--json']);
    expect(rotate.code, rotate.stderr).toBe(0);
    expect(JSON.parse(rotate.stdout).client_secret).toMatch(/^svc_cs_\S+$/);
  });

  it('a lost rotation with --show-secret names a re-run that prints the secret too', async () => {
    const client = await createClient(svc.sandbox());
    const id = client.client_id as string;
    lost.lose(`/v1/oauth/clients/${id}/rotate-secret`, 99);
    const env = { env: { SVC_BASE_URL: lost.proxy().url, SVC_MAX_RETRIES: '1' } };
    const r = await svc.run(['oauth', 'rotate-secret', id, '--yes', '--show-secret'], env);
    expect([r.code, r.stdout]).toEqual([1, '']);
    const key = /--idempotency-key (svc_[0-9a-f-]{36}) /.exec(r.stderr)?.[1];
    expect(r.stderr).toContain(
      `re-run with: svc oauth rotate-secret ${id} --idempotency-key ${key} --show-secret --yes to get the new secret`,
    );
    lost.stop();
    const again = await svc.run([
      'oauth',
      'rotate-secret',
      id,
      '--yes',
      '--show-secret',
      '--idempotency-key',
      key!,
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^client secret\tsvc_cs_\S+$/m);
  });

  it('--secret-file writes it 0600 and prints only the path, with --json as client_secret_file', async () => {
    const file = join(files, 'client.secret');
    const r = await svc.run([...CREATE, '--secret-file', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout);
    expect(shown.client_secret).toBeUndefined();
    expect(shown.client_secret_file).toBe(file);
    expect(readFileSync(file, 'utf8')).toMatch(/^svc_cs_\S+$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
