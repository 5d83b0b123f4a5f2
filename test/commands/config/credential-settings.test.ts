/**
 * A credential pasted as a setting — a client secret or an API key as the client id, as the org,
 * in a base URL — is refused before it is sent or saved, from every source (a flag, the
 * environment, the profile, `config set`), as `--tenant svc_sk_…` already was; and `config ls`
 * and `profiles ls` mask one an older svc saved (review s14, secrets 5). The hint says where the
 * kind pasted goes instead, and what the setting takes (review15 R15-4).
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, testContext, useFreshDirs } from '../../helpers/context.js';
import { useHostileServer } from '../../helpers/hostile.js';

const fresh = useFreshDirs();
const server = useHostileServer();
const CS = 'svc_cs_y2jy7StNfRDR01Xf1Q7XF51HO5G7mzk8Mq2Ss5AMgzM';
const SK = 'svc_sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ123456';
const WH = 'whsec_abcdefghijklmnopqrstuvwx';
const RT = 'svc_rt_abcdefghijklmnopqrstuvwx';
// Where each kind goes instead (review15 R15-4): never SVC_TOKEN for a client or webhook secret,
// which would then be sent as a bearer token to every call.
const CLIENT_SECRET_HOME =
  'a client secret goes in --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET';
// Each run names profile t1 (SVC_PROFILE): the login line repeats it, else it would log the active one in.
const TOKEN_HOME =
  'an API key or token goes in the credential store: `svc -p t1 login --with-token`, or SVC_TOKEN';
const WEBHOOK_HOME =
  'a webhook signing secret goes in --secret-file or SVC_WEBHOOK_SECRET (`svc webhooks verify`, `sign`, `listen`)';
const REFRESH_HOME =
  'a refresh token goes in --refresh-token-file or --refresh-token-stdin (`svc oauth token --grant-type refresh_token`)';
const CLIENT_ID = "give the OAuth client's id instead (`svc oauth ls` lists them)";
const ORG = "give the organisation's id instead";

/** Fresh directories with profile t1 at a server that records every request, holding `values`. */
async function setUp(values: Record<string, string> = {}) {
  const s = await server();
  const env = { ...fresh(), SVC_PROFILE: 't1', SVC_MAX_RETRIES: '0' };
  await testContext({ env })
    .ctx.store()
    .setProfileValues('t1', { base_url: s.url, tenant: 'ten_1', ...values });
  const opened: string[] = [];
  const run = (argv: string[], extra: Record<string, string> = {}) =>
    runInProcess(argv, { ...env, ...extra }, { browser: { open: async (url) => void opened.push(url) } });
  return { s, env, run, opened };
}

describe('a credential as a setting is never sent', () => {
  it.each<[string, string[], Record<string, string>, Record<string, string>, string]>([
    [
      'login --client-id',
      ['login', '--client-id', CS, '--no-browser'],
      {},
      {},
      `error: --client-id holds a client secret, not an OAuth client id; svc did not send it or save it; ${CLIENT_ID}; ${CLIENT_SECRET_HOME}\n`,
    ],
    [
      'SVC_CLIENT_ID',
      ['login', '--no-browser'],
      { SVC_CLIENT_ID: SK },
      {},
      `error: SVC_CLIENT_ID holds the API key itself, not an OAuth client id; svc did not send it or save it; ${CLIENT_ID}; ${TOKEN_HOME}\n`,
    ],
    [
      "the profile's client_id",
      ['login', '--no-browser'],
      {},
      { client_id: CS },
      'error: client_id in profile "t1" holds a client secret, not an OAuth client id; svc did not send it; remove it with `svc -p t1 config unset client_id`\n',
    ],
    [
      'oauth token with SVC_CLIENT_ID',
      ['oauth', 'token', '--grant-type', 'refresh_token', '--refresh-token-stdin'],
      { SVC_CLIENT_ID: CS },
      {},
      `error: SVC_CLIENT_ID holds a client secret, not an OAuth client id; svc did not send it or save it; ${CLIENT_ID}; ${CLIENT_SECRET_HOME}\n`,
    ],
    [
      '--org',
      ['--org', SK, 'roles', 'ls'],
      { SVC_TOKEN: 'tok_0123456789abcdef' },
      {},
      `error: --org holds the API key itself, not an organisation id; svc did not send it or save it; ${ORG}; ${TOKEN_HOME}\n`,
    ],
    [
      'SVC_ORG',
      ['roles', 'ls'],
      { SVC_TOKEN: 'tok_0123456789abcdef', SVC_ORG: CS },
      {},
      `error: SVC_ORG holds a client secret, not an organisation id; svc did not send it or save it; ${ORG}; ${CLIENT_SECRET_HOME}\n`,
    ],
    [
      'login --client-id with a webhook signing secret',
      ['login', '--client-id', WH, '--no-browser'],
      {},
      {},
      `error: --client-id holds a webhook signing secret, not an OAuth client id; svc did not send it or save it; ${CLIENT_ID}; ${WEBHOOK_HOME}\n`,
    ],
    [
      'SVC_CLIENT_ID with a refresh token',
      ['login', '--no-browser'],
      { SVC_CLIENT_ID: RT },
      {},
      `error: SVC_CLIENT_ID holds a refresh token, not an OAuth client id; svc did not send it or save it; ${CLIENT_ID}; ${REFRESH_HOME}\n`,
    ],
    [
      "the profile's org",
      ['roles', 'ls'],
      { SVC_TOKEN: 'tok_0123456789abcdef' },
      { org: SK },
      'error: org in profile "t1" holds the API key itself, not an organisation id; svc did not send it; remove it with `svc -p t1 config unset org`\n',
    ],
  ])('%s: refused, exit 2, nothing sent', async (_, argv, extra, values, stderr) => {
    const { s, run, opened } = await setUp(values);
    expect(await run(argv, extra)).toEqual({ code: 2, stdout: '', stderr });
    expect(s.seen).toEqual([]);
    expect(opened).toEqual([]);
  });
});

describe('config set refuses a credential as any value', () => {
  it.each([
    ['client_id', CS, 'a client secret, not an OAuth client id', `${CLIENT_ID}; ${CLIENT_SECRET_HOME}`],
    ['client_id', WH, 'a webhook signing secret, not an OAuth client id', `${CLIENT_ID}; ${WEBHOOK_HOME}`],
    ['org', CS, 'a client secret, not an organisation id', `${ORG}; ${CLIENT_SECRET_HOME}`],
    [
      'tenant',
      SK,
      'the API key itself, not a tenant id or slug',
      `give the tenant's id or slug instead; ${TOKEN_HOME}`,
    ],
    [
      'base_url',
      `http://127.0.0.1:1/?token=${CS}`,
      'a client secret, not a base URL',
      `take it out of the URL; ${CLIENT_SECRET_HOME}`,
    ],
  ])('%s: refused, not saved', async (key, value, problem, hint) => {
    const { env, run } = await setUp();
    const before = testContext({ env }).ctx.store().profile('t1');
    expect(await run(['config', 'set', key, value])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: that is ${problem}; svc did not save it; ${hint}\n`,
    });
    expect(testContext({ env }).ctx.store().profile('t1')).toEqual(before);
  });
});

describe('config ls and profiles ls mask a credential an older svc saved', () => {
  it('masks it in every column, text and --json', async () => {
    const { s, run } = await setUp({ client_id: CS, org: SK });
    const ls = await run(['config', 'ls']);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toContain('svc_cs_[redacted]');
    expect(ls.stdout).toContain('svc_sk_[redacted]');
    for (const argv of [
      ['config', 'ls'],
      ['config', 'ls', '--json'],
      ['profiles', 'ls', '--wide'],
      ['profiles', 'ls', '--json'],
      ['profiles', 'show', 't1', '--json'],
    ]) {
      const out = await run(argv);
      expect(out.code, `${argv.join(' ')}: ${out.stderr}`).toBe(0);
      expect(out.stdout + out.stderr).not.toContain(CS);
      expect(out.stdout + out.stderr).not.toContain(SK);
    }
    expect(s.seen).toEqual([]);
  });
});
