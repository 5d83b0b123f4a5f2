/**
 * The command lines svc prints for a person to run (the commands that put a webhook back after a
 * killed `webhooks listen --webhook`, a listing's continuation, oauth create's "try it") carry the
 * global options the run was given as flags (`targetOptions`): pasted into a fresh
 * shell (no SVC_TENANT, no SVC_BASE_URL), they act on the tenant, base URL and profile the run did, not on the
 * profile's default tenant (s11 review-b 1 and 3). Pasted into a real bash to prove it.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Settings, targetOptions } from '../../src/config/settings.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { runProcess } from '../../src/system/run.js';
import { startInProcess } from '../helpers/context.js';
import { needs } from '../helpers/needs.js';
import { call, useSandboxContext } from '../helpers/sandbox.js';
import { BIN, baseEnv } from '../helpers/svc.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const EU = 'acme-payments-eu';
const tmp = useTempDir('svc-printed-target-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A fresh shell's environment: the credential and private directories, no SVC_TENANT or SVC_BASE_URL. */
const freshShell = () => ({ ...svc.env(), SVC_TENANT: undefined, SVC_BASE_URL: undefined });

/** The global options of a run that named the sandbox and a second tenant by flag. */
const flags = () => ['--base-url', svc.sandbox().url, '--tenant', EU];

/** Runs `line` in bash as pasted into a fresh shell, with `svc` the built binary. */
function paste(line: string) {
  const define = `svc() { "${process.execPath}" "${BIN}" "$@"; }`;
  return runProcess('bash', ['-c', `${define}\n${line}\n`], {
    env: baseEnv(freshShell()),
    timeoutMs: 30_000,
  });
}

const settings = (over: Partial<Settings>): Settings => ({
  profile: 'default',
  profileSource: 'default',
  values: {},
  sources: {},
  ...over,
});

describe('targetOptions: what a printed command line repeats', () => {
  it('repeats a profile, base URL, app URL, tenant and org given by flag, each one shell word', () => {
    expect(
      targetOptions(
        settings({
          profile: 'my prod',
          profileSource: 'flag',
          values: {
            base_url: 'https://api.example',
            app_url: 'https://app.example',
            tenant: 'a$b',
            org: 'org_1',
            client_id: 'x',
          },
          sources: { base_url: 'flag', app_url: 'flag', tenant: 'flag', org: 'flag', client_id: 'flag' },
        }),
      ),
    ).toBe(
      "-p 'my prod' --base-url https://api.example --app-url https://app.example --tenant 'a$b' --org org_1 ",
    );
  });

  // leaks11 6: a secret-named query value of a URL flag was repeated in full.
  it('masks a secret-named query value of a repeated URL (svc sends no query of a base URL)', () => {
    expect(
      targetOptions(
        settings({
          profile: 'p',
          profileSource: 'env',
          values: { base_url: 'https://api.example/?api_key=k-123456789&region=eu' },
          sources: { base_url: 'flag' },
        }),
      ),
    ).toBe("--base-url 'https://api.example/?api_key=[redacted]&region=eu' ");
  });

  it('leaves out what the environment or the profile gave (the shell and the profile give it again), and a defaulted app URL', () => {
    expect(
      targetOptions(
        settings({
          profile: 'prod',
          profileSource: 'env',
          values: { base_url: 'https://api.example', app_url: 'https://api.example', tenant: 't', org: 'o' },
          sources: { base_url: 'env', app_url: 'default', tenant: 'profile', org: 'env' },
        }),
      ),
    ).toBe('');
  });
});

needs('bash').describe('printed command lines pasted into a fresh shell act where the run did', () => {
  it('listen --webhook with --tenant of a second tenant: the restore line puts that tenant’s webhook back', async () => {
    const eu = tenantId(EU);
    const made = await call(svc.sandbox(), 'POST', '/v1/webhooks', {
      token: svc.sandbox().adminToken,
      tenant: eu,
      body: {
        url: 'https://hooks.example/eu',
        event_types: ['webhook.test'],
        idempotency_key: `eu-${Date.now()}`,
      },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.id as string;
    const run = startInProcess(
      [...flags(), 'webhooks', 'listen', '--port', '0', '--webhook', id],
      freshShell(),
      {
        now: Date.now(),
      },
    );
    await run.waitForStderr(/delivers here/);
    const printed = /^ {2}(svc .*api PATCH .+)$/m.exec(run.stderr())?.[1];
    expect(printed).toBe(
      `svc ${flags().join(' ')} api PATCH /v1/webhooks/${id} -f url=https://hooks.example/eu && ` +
        `svc ${flags().join(' ')} api POST /v1/webhooks/${id}/restore-secret`,
    );
    // Pasted while the session still runs (it stands in for one that was killed): W is put back.
    const pasted = await paste(printed!);
    expect([pasted.code, pasted.stderr]).toEqual([0, '']);
    const now = await call(svc.sandbox(), 'GET', `/v1/webhooks/${id}`, {
      token: svc.sandbox().adminToken,
      tenant: eu,
    });
    expect(now.body.url).toBe('https://hooks.example/eu');
    run.interrupt();
    await run.done;
  }, 60_000);

  it('users ls --tenant of a second tenant: the continuation lists that tenant’s next users', async () => {
    const first = await svc.run([...flags(), 'users', 'ls', '--limit', '1'], { env: freshShell() });
    expect(first.code, first.stderr).toBe(0);
    const printed = /more with: (svc .+ --cursor \S+)/.exec(first.stderr)?.[1];
    expect(printed).toMatch(new RegExp(`^svc ${flags().join(' ')} users ls --cursor `));
    const pasted = await paste(`${printed} --limit 1`);
    expect([pasted.code, pasted.stderr.replace(/^1 shown; more with: .*\n$/, '')]).toEqual([0, '']);
    const all = await svc.run([...flags(), 'users', 'ls', '--limit', '2'], { env: freshShell() });
    expect(pasted.stdout).toBe(`${all.stdout.split('\n')[1]}\n`);
  }, 60_000);

  it('oauth create --tenant of a second tenant: "try it" names that tenant', async () => {
    const made = await svc.run(
      [
        ...flags(),
        'oauth',
        'create',
        '--name',
        'printed-target',
        '--redirect-uri',
        'http://127.0.0.1/callback',
        '--scope',
        'read:exceptions',
        '--secret-file',
        join(tmp, 'client.secret'),
      ],
      { env: freshShell() },
    );
    expect(made.code, made.stderr).toBe(0);
    const id = /--client-id (cli_\w+)/.exec(made.stderr)?.[1];
    expect(made.stderr).toContain(
      `try it: svc ${flags().join(' ')} oauth authorize --client-id ${id} --client-secret-file ${join(tmp, 'client.secret')}\n`,
    );
    // The client it names is the second tenant's.
    const got = await call(svc.sandbox(), 'GET', `/v1/oauth/clients/${id}`, {
      token: svc.sandbox().adminToken,
      tenant: tenantId(EU),
    });
    expect(got.status, got.text).toBe(200);
  });
});
