// Over 300 lines: the ways a secret could leak through svc's output (secret-bearing answers,
// servers that echo credentials or what svc sent, text redaction), in one file so a new secret
// is checked in each.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MASK, redactText } from '../../src/http/redact.js';
import { runInProcess } from '../helpers/context.js';
import { answers, useHostileServer } from '../helpers/hostile.js';
import { authorizationCode, codeTokens, createClient, TREASURY } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { attackDirs, cases } from './lib.js';

/**
 * Attack class "secrets": every secret-bearing answer the sandbox can produce (OAuth client
 * creation and rotation, the token endpoint for both grants, API keys, webhook secrets, a token
 * given to login) is fetched in every output mode with and without --debug, and no secret may
 * appear on stderr — nor on stdout, unless printing it is what the command is for. Then a
 * hostile server echoes credentials back in its errors, which svc must not repeat.
 */

const sandbox = useSandbox();
const dirs = attackDirs();
const MODES: string[][] = [[], ['--json'], ['--debug'], ['--debug', '--json']];

const env = (extra: Record<string, string> = {}) => ({
  ...dirs.env,
  SVC_BASE_URL: sandbox().url,
  SVC_TOKEN: sandbox().adminToken,
  SVC_TENANT: TREASURY,
  ...extra,
});

let n = 0;
const file = (name: string, content?: string) => {
  const path = join(dirs.root, `${++n}-${name}`);
  if (content !== undefined) writeFileSync(path, content, { mode: 0o600 });
  return path;
};

/** Every credential-shaped value in a text (what a leak would look like). */
function credentials(text: string): string[] {
  return text.match(/(svc_(?:sk|pk|cs|rt)_[\w-]{20,}|whsec_[\w-]{20,}|eyJ[\w-]+\.[\w-]+\.[\w-]*)/g) ?? [];
}

interface Run {
  argv: string[];
  stdin?: string;
  /** Secrets known before the run (inputs). */
  inputs: string[];
  /** Where the run's own secret ends up: a file (then stdout must not carry it), or stdout. */
  outputFile?: string;
}

type Scenario = [name: string, prepare: () => Promise<Run>];

const SCENARIOS: Scenario[] = [
  [
    'tenants api-keys create --secret-file',
    async () => {
      const out = file('key');
      return {
        argv: ['tenants', 'api-keys', 'create', TREASURY, '--kind', 'publishable', '--secret-file', out],
        inputs: [],
        outputFile: out,
      };
    },
  ],
  [
    'tenants api-keys create (service_role, printed)',
    async () => ({
      argv: [
        'tenants',
        'api-keys',
        'create',
        TREASURY,
        '--kind',
        'service_role',
        '--justification',
        'nightly ledger sync job',
        '--show-secret',
      ],
      inputs: [],
    }),
  ],
  [
    'oauth create --secret-file',
    async () => {
      const out = file('client-secret');
      return {
        argv: [
          'oauth',
          'create',
          '--name',
          'c',
          '--redirect-uri',
          'http://127.0.0.1/cb',
          '--scope',
          'read:exceptions',
          '--secret-file',
          out,
        ],
        inputs: [],
        outputFile: out,
      };
    },
  ],
  [
    'oauth create (printed)',
    async () => ({
      argv: [
        'oauth',
        'create',
        '--name',
        'c',
        '--redirect-uri',
        'http://127.0.0.1/cb',
        '--scope',
        'read:exceptions',
        '--show-secret',
      ],
      inputs: [],
    }),
  ],
  [
    'oauth rotate-secret --secret-file',
    async () => {
      const client = await createClient(sandbox());
      const out = file('rotated');
      return {
        argv: ['oauth', 'rotate-secret', client.client_id, '--yes', '--secret-file', out],
        inputs: [client.client_secret],
        outputFile: out,
      };
    },
  ],
  [
    'oauth token --grant-type authorization_code',
    async () => {
      const client = await createClient(sandbox());
      const { code, redirectUri, verifier } = await authorizationCode(sandbox(), client);
      return {
        argv: [
          'oauth',
          'token',
          '--grant-type',
          'authorization_code',
          '--client-id',
          client.client_id,
          '--client-secret-file',
          file('cs', client.client_secret),
          '--code-file',
          file('code', code),
          '--redirect-uri',
          redirectUri,
          '--code-verifier-file',
          file('verifier', verifier!),
        ],
        inputs: [client.client_secret, code, verifier!],
      };
    },
  ],
  [
    'oauth token --grant-type refresh_token',
    async () => {
      const client = await createClient(sandbox());
      const tokens = await codeTokens(sandbox(), client);
      return {
        argv: [
          'oauth',
          'token',
          '--grant-type',
          'refresh_token',
          '--client-id',
          client.client_id,
          '--client-secret-stdin',
          '--refresh-token-file',
          file('rt', `${tokens.body.refresh_token}\n`),
        ],
        stdin: client.client_secret,
        inputs: [client.client_secret, tokens.body.refresh_token, tokens.body.access_token],
      };
    },
  ],
  [
    'api POST /v1/webhooks (the secret is the raw body)',
    async () => ({
      argv: ['api', 'POST', '/v1/webhooks', '--input', '-'],
      stdin: JSON.stringify({ url: 'https://hooks.example/in', event_types: ['webhook.test'] }),
      inputs: [],
    }),
  ],
  [
    'api POST /v1/webhooks/ID/rotate-secret',
    async () => {
      const created = await call(sandbox(), 'POST', '/v1/webhooks', {
        token: sandbox().adminToken,
        tenant: TREASURY,
        body: { url: 'https://hooks.example/r', event_types: ['webhook.test'], idempotency_key: `k${++n}` },
      });
      return {
        argv: ['api', 'POST', `/v1/webhooks/${created.body.id}/rotate-secret`],
        inputs: [created.body.secret],
      };
    },
  ],
  [
    'login --with-token (a JWT on stdin)',
    async () => {
      const { token } = sandbox().issueToken('usr_admin');
      return { argv: ['-p', `p${++n}`, 'login', '--with-token'], stdin: token, inputs: [token] };
    },
  ],
];

describe('no secret leaks from any secret-bearing answer', () => {
  const runs = SCENARIOS.flatMap(([name, prepare]) => MODES.map((mode) => [name, mode, prepare] as const));

  it.each(runs)('%s %j', async (_name, mode, prepare) => {
    const run = await prepare();
    const extra: Record<string, string> = run.argv.includes('login') ? { SVC_TOKEN: '' } : {};
    const result = await runInProcess([...mode, ...run.argv], env(extra), {
      ...(run.stdin === undefined ? {} : { stdin: run.stdin }),
    });
    expect(result.code, result.stderr).toBe(0);
    const own = run.outputFile ? [readFileSync(run.outputFile, 'utf8').trim()] : credentials(result.stdout);
    const secrets = [...run.inputs, sandbox().adminToken, ...own].filter((s) => s.length > 0);
    for (const secret of secrets) expect(result.stderr).not.toContain(secret);
    // stdout carries a secret only when printing it is the command's purpose.
    const allowedOnStdout = new Set(run.outputFile ? [] : own);
    for (const secret of secrets)
      if (!allowedOnStdout.has(secret)) expect(result.stdout).not.toContain(secret);
    if (mode.includes('--debug')) expect(result.stderr).toContain(MASK);
  });
});

describe('a server that echoes credentials in its errors', () => {
  const server = useHostileServer();
  const TOKEN = 'tok_canary_echoed_0123456789';
  const UNREGISTERED = [
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfY2FuYXJ5In0.c2lnbmF0dXJlLWNhbmFyeQ',
    'svc_sk_AAAAcanaryCANARYcanaryCANARY0',
    'whsec_canaryCANARYcanaryCANARYcanary',
  ];

  const ECHOES: Array<[string, (auth: string) => ReturnType<typeof answers.raw>]> = [
    ['a 500 text body', (auth) => answers.raw(500, `upstream said: ${auth}`, 'text/plain')],
    [
      'a 400 JSON error and its details',
      (auth) =>
        answers.json(400, {
          error: {
            code: 'bad',
            message: `header was ${auth}`,
            details: [{ field: 'client_secret', message: `got ${UNREGISTERED[1]}`, value: UNREGISTERED[2] }],
          },
        }),
    ],
    [
      'a 401 OAuth error',
      (auth) => answers.json(401, { error: 'invalid_token', error_description: `${auth} is bad` }),
    ],
    [
      'an HTML 403',
      (auth) => answers.raw(403, `<p>Denied for <b>${auth}</b> (${UNREGISTERED[0]})</p>`, 'text/html'),
    ],
  ];

  it.each(ECHOES.flatMap(([name, echo]) => MODES.map((mode) => [name, mode, echo] as const)))(
    '%s %j',
    async (_name, mode, echo) => {
      const s = await server();
      s.answer((req, res, received, hit) => echo(String(req.headers.authorization))(req, res, received, hit));
      const result = await runInProcess([...mode, 'me'], {
        ...dirs.env,
        SVC_BASE_URL: s.url,
        SVC_TOKEN: TOKEN,
        SVC_MAX_RETRIES: '0',
      });
      expect(result.code).not.toBe(0);
      for (const secret of [TOKEN, ...UNREGISTERED]) {
        expect(result.stderr).not.toContain(secret);
        expect(result.stdout).not.toContain(secret);
      }
      expect(result.stderr).toContain(MASK);
      if (mode.includes('--json') && !mode.includes('--debug'))
        expect(() => JSON.parse(result.stderr)).not.toThrow();
    },
  );
});

describe('a server that echoes what svc sent it', () => {
  const server = useHostileServer();
  const CLIENT_SECRET = 'ghs_0123456789abcdefABCDEF0123456789abcd';
  const REFRESH = 'rt_opaque_refresh_0123456789abcdefghij';
  const PASSWORD = 'pa55word99';
  const FIELD_SECRET = 'cs_abcdefgh123';
  const HEADERS = ['hunter2hunter2XYZ', 's.abcdefghijkl', 'pvtpvtpvtpvt123'];
  /** svc run against a server whose error repeats every header and the body it received. */
  const echoing = (argv: string[], secrets: string[]) => async () => {
    const s = await server();
    s.answer((req, res, received, hit) =>
      answers.json(400, {
        error: {
          code: 'bad_request',
          message: `rejected headers ${JSON.stringify(req.headers)} body ${received.body}`,
        },
      })(req, res, received, hit),
    );
    return { url: s.url, argv, secrets };
  };

  // Opaque secrets (no credential shape), cut by svc's own limits: an error's text at 200
  // characters, a trace body at 4,096. The cut used to come before the masking, which then
  // missed the secret it had cut in two.
  const tokenRequest = (pad: number) => async () => {
    const s = await server();
    s.answer((_req, res, received) => {
      const sent = new URLSearchParams(received.body).get('client_secret');
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(`Bad request: ${'x'.repeat(pad)} client_secret=${sent} rejected`);
    });
    return {
      url: s.url,
      argv: [
        'oauth',
        'token',
        '--grant-type',
        'refresh_token',
        '--client-id',
        'cli_x',
        '--client-secret-file',
        file('cs', CLIENT_SECRET),
        '--refresh-token-file',
        file('rt', REFRESH),
      ],
      secrets: [CLIENT_SECRET, REFRESH],
    };
  };
  // A secret with characters that form, percent and JSON encoding change: the echo quotes it
  // decoded, form-encoded (the body as received), percent-encoded and inside a JSON string.
  const ENCODED_SECRET = 'Sec+ret/Val=ue&1234%41"q\\zé';
  const encodedEcho = async () => {
    const s = await server();
    s.answer((_req, res, received) => {
      const sent = new URLSearchParams(received.body).get('client_secret') ?? '';
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: 'invalid_grant',
          error_description: `bad: secret=${sent} enc=${encodeURIComponent(sent)} raw=${received.body}`,
        }),
      );
    });
    return {
      url: s.url,
      argv: [
        'oauth',
        'token',
        '--grant-type',
        'refresh_token',
        '--client-id',
        'cli_x',
        '--client-secret-file',
        file('cs', ENCODED_SECRET),
        '--refresh-token-file',
        file('rt', REFRESH),
      ],
      secrets: [ENCODED_SECRET, REFRESH].flatMap((secret) => [
        secret,
        encodeURIComponent(secret),
        new URLSearchParams({ s: secret }).toString().slice(2),
        JSON.stringify(secret).slice(1, -1),
      ]),
    };
  };
  const CASES: Array<[string, () => Promise<{ url: string; argv: string[]; secrets: string[] }>]> = [
    ['a secret with + / = & % echoed decoded, form-, percent- and JSON-encoded', encodedEcho],
    ['a secret cut in two by the error text limit', tokenRequest(133)],
    ['a secret cut in two by the trace body limit', tokenRequest(4060)],
    [
      'secret-named fields svc sent, echoed back',
      echoing(
        ['api', 'POST', '/v1/records', '-f', `password=${PASSWORD}`, '-f', `client_secret=${FIELD_SECRET}`],
        [PASSWORD, FIELD_SECRET],
      ),
    ],
    [
      'secret-named headers given with svc api -H, echoed back',
      echoing(
        [
          'api',
          '/v1/me',
          '-H',
          `X-Auth-Token: ${HEADERS[0]}`,
          '-H',
          `X-Vault-Token: ${HEADERS[1]}`,
          '-H',
          `Private-Token: ${HEADERS[2]}`,
        ],
        HEADERS,
      ),
    ],
  ];

  it.each(CASES.flatMap(([name, make]) => MODES.map((mode) => [name, mode, make] as const)))(
    '%s %j',
    async (name, mode, make) => {
      const { url, argv, secrets } = await make();
      const result = await runInProcess([...mode, ...argv], {
        ...dirs.env,
        SVC_BASE_URL: url,
        SVC_TOKEN: 'tok_canary_echoed_0123456789',
        SVC_MAX_RETRIES: '0',
      });
      expect(result.code).not.toBe(0);
      // stdout is `svc api`'s: the answer as the server sent it, which is what it is for.
      const printed = argv[0] === 'api' ? [result.stderr] : [result.stderr, result.stdout];
      for (const secret of secrets) {
        // Not even the part before a cut.
        for (const text of printed) expect(text).not.toContain(secret.slice(0, 8));
      }
      // The echo reaches stderr (so the check above is not vacuous), except the trace's cut
      // without --debug: the error's own text stops long before the secret. (A cut may fall
      // inside the mask itself, or a form's mask be percent-encoded.)
      if (!name.includes('trace') || mode.includes('--debug')) expect(result.stderr).toContain('redacted');
    },
  );
});

describe('redactText masks credential shapes wherever they sit in text', () => {
  const token = fc.stringMatching(/^[A-Za-z0-9_-]{24,60}$/);
  const shaped = fc.oneof(
    token.map((t) => `svc_sk_${t}`),
    token.map((t) => `svc_pk_${t}`),
    token.map((t) => `svc_cs_${t}`),
    token.map((t) => `svc_rt_${t}`),
    token.map((t) => `whsec_${t}`),
    fc.tuple(token, token, token).map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`),
  );
  const around = fc.string({ maxLength: 40 }).filter((s) => !/[A-Za-z0-9_-]$/.test(s));
  const after = fc.string({ maxLength: 40 }).filter((s) => !/^[A-Za-z0-9_.-]/.test(s));

  it('shaped credentials', () => {
    fc.assert(
      fc.property(around, shaped, after, (before, secret, rest) => {
        const out = redactText(`${before}${secret}${rest}`);
        expect(out).not.toContain(secret);
      }),
      { numRuns: cases(300, 20_000) },
    );
  });

  it('bearer credentials after the scheme, any case', () => {
    fc.assert(
      fc.property(
        around,
        fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic'),
        token,
        after,
        (a, scheme, t, b) => {
          expect(redactText(`${a}${scheme} ${t}${b}`)).not.toContain(t);
        },
      ),
      { numRuns: cases(300, 20_000) },
    );
  });

  it('registered secrets, whatever surrounds them', () => {
    // A secret svc knows (at least 8 characters; not made only of the letters of the mask).
    const secret = fc.stringMatching(/^[A-Za-z0-9_~+/=.-]{8,40}$/).filter((s) => /[^redact]/.test(s));
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), secret, fc.string({ maxLength: 30 }), (a, value, b) => {
        expect(redactText(`${a}${value}${b}`, [value])).not.toContain(value);
      }),
      { numRuns: cases(300, 20_000) },
    );
  });
});
