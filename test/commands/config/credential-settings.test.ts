/**
 * A credential pasted as a setting — a client secret or an API key as the client id, as the org,
 * in a base URL — is refused before it is sent or saved, from every source (a flag, the
 * environment, the profile, `config set`), as `--tenant svc_sk_…` already was; and `config ls`
 * and `profiles ls` mask one an older svc saved (review s14, secrets 5).
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, testContext, useFreshDirs } from '../../helpers/context.js';
import { useHostileServer } from '../../helpers/hostile.js';

const fresh = useFreshDirs();
const server = useHostileServer();
const CS = 'svc_cs_y2jy7StNfRDR01Xf1Q7XF51HO5G7mzk8Mq2Ss5AMgzM';
const SK = 'svc_sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ123456';
const STORE = 'credentials go in the credential store: `svc login`, or SVC_TOKEN';

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
      `error: --client-id holds a client secret, not an OAuth client id; svc did not send it or save it; ${STORE}\n`,
    ],
    [
      'SVC_CLIENT_ID',
      ['login', '--no-browser'],
      { SVC_CLIENT_ID: SK },
      {},
      `error: SVC_CLIENT_ID holds the API key itself, not an OAuth client id; svc did not send it or save it; ${STORE}\n`,
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
      `error: SVC_CLIENT_ID holds a client secret, not an OAuth client id; svc did not send it or save it; ${STORE}\n`,
    ],
    [
      '--org',
      ['--org', SK, 'roles', 'ls'],
      { SVC_TOKEN: 'tok_0123456789abcdef' },
      {},
      `error: --org holds the API key itself, not an organisation id; svc did not send it or save it; ${STORE}\n`,
    ],
    [
      'SVC_ORG',
      ['roles', 'ls'],
      { SVC_TOKEN: 'tok_0123456789abcdef', SVC_ORG: CS },
      {},
      `error: SVC_ORG holds a client secret, not an organisation id; svc did not send it or save it; ${STORE}\n`,
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
    ['client_id', CS, 'a client secret, not an OAuth client id'],
    ['org', CS, 'a client secret, not an organisation id'],
    ['tenant', SK, 'the API key itself, not a tenant id or slug'],
    ['base_url', `http://127.0.0.1:1/?token=${CS}`, 'a client secret, not a base URL'],
  ])('%s: refused, not saved', async (key, value, problem) => {
    const { env, run } = await setUp();
    const before = testContext({ env }).ctx.store().profile('t1');
    expect(await run(['config', 'set', key, value])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: that is ${problem}; svc did not save it; ${STORE}\n`,
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
