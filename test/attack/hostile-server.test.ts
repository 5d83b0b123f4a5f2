import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/system/run.js';
import { runInProcess } from '../helpers/context.js';
import { type Answer, answers, useHostileServer } from '../helpers/hostile.js';
import { needs, requiredTool } from '../helpers/needs.js';
import { BIN, baseEnv, ROOT } from '../helpers/svc.js';
import { attackDirs } from './lib.js';

/**
 * Attack class "hostile server": a server (or a proxy, or a captive portal) that answers with a
 * redirect, a web page, JSON null, a cut-off or malformed body, or an endless body. svc must
 * believe none of it: exit 1 with a one-line error naming what came back, never a success,
 * never "this is a bug in svc", never a secret file holding `undefined`, never a retry of an
 * answer that was too large, and never the token sent anywhere but the configured origin.
 */

const server = useHostileServer();
const dirs = attackDirs();
const TOKEN = 'tok_canary_hostile_0123456789';

function env(url: string, extra: Record<string, string> = {}) {
  return {
    ...dirs.env,
    SVC_BASE_URL: url,
    SVC_TOKEN: TOKEN,
    SVC_TENANT: '00000000-0000-4000-8000-000000000001',
    ...extra,
  };
}

const ROLE = { id: 'role_1', name: 'fx-desk', kind: 'custom', permissions: ['exception.read'] };
const HTML = '<!doctype html><html><body><h1>Sign in to the Wi-Fi</h1></body></html>';

/** GETs answered with a role (so commands get as far as their change), everything else by `answer`. */
function onlyChanges(answer: Answer): Answer {
  return (req, res, received, hit) =>
    req.method === 'GET' ? answers.json(200, ROLE)(req, res, received, hit) : answer(req, res, received, hit);
}

let files = 0;
const secretPath = () => join(dirs.root, `secret-${++files}.txt`);
const oauthCreate = (file: string) => [
  'oauth',
  'create',
  '--name',
  'x',
  '--redirect-uri',
  'https://app.example/cb',
  '--scope',
  'read:exceptions',
  '--secret-file',
  file,
];

describe('a hostile server', () => {
  it('a signing secret that spans lines is not one svc can use: not shown, exit 1 (attack27a F1)', async () => {
    const s = await server();
    s.answer(
      answers.json(201, {
        id: 'wh_1',
        url: 'https://x.example/',
        event_types: ['webhook.test'],
        status: 'enabled',
        secret: 'whsec_line1\nline2',
      }),
    );
    const result = await runInProcess(
      ['webhooks', 'create', '--url', 'https://x.example/', '--event-type', 'webhook.test', '--show-secret'],
      env(s.url),
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe(
      'error: webhook wh_1 was created, but the platform answered a secret svc cannot use (it spans several lines); it is not shown; get a new one with: svc webhooks rotate-secret wh_1 --secret-file PATH',
    );
  });

  it.each([301, 302, 303, 307, 308])(
    'a %i is an error naming the status and the Location host; it is never followed',
    async (status) => {
      const s = await server();
      s.answer(answers.redirect(status, 'https://collector.example/v1/me'));
      const result = await runInProcess(['me'], env(s.url));
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`answered ${status}`);
      expect(result.stderr).toContain('collector.example');
      expect(result.stderr).not.toContain(TOKEN);
      expect(s.seen).toHaveLength(1);
    },
  );

  it('oauth create --secret-file: a 200 text/html exits 1 and leaves no file', async () => {
    const s = await server();
    s.answer(answers.raw(200, HTML, 'text/html; charset=utf-8'));
    const file = secretPath();
    const result = await runInProcess(oauthCreate(file), env(s.url));
    expect(result.code).toBe(1);
    const key = /--idempotency-key (svc_[0-9a-f-]{36}) /.exec(result.stderr)?.[1];
    expect(result.stderr).toBe(
      // The server said it did it: an unknown outcome with how to check, never a plain failure
      // (review20d), and the key that gets the same answer, secret included (review21 F4).
      "error: the server's answer to POST /v1/oauth/clients is not a JSON object (text/html); svc saved and printed nothing, but the server answered 200 and may have made the change (`svc oauth ls` shows whether it was): " +
        `re-run with --idempotency-key ${key} to get the same answer, secret included, without creating a second client (the platform keeps it for 24 hours)\n`,
    );
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    ['without client_secret', { client_id: 'cli_1', name: 'x' }],
    ['with client_secret null', { client_id: 'cli_1', name: 'x', client_secret: null }],
    ['with client_secret ""', { client_id: 'cli_1', name: 'x', client_secret: '' }],
  ])('oauth create --secret-file: a 201 %s writes nothing and exits 1', async (_name, body) => {
    const s = await server();
    s.answer(answers.json(201, body));
    const file = secretPath();
    const result = await runInProcess(oauthCreate(file), env(s.url));
    expect(result.code).toBe(1);
    // Refused by the platform's answer check (missing or null) or by the secret file (empty).
    expect(result.stderr).toMatch(/nothing was written|svc saved and printed nothing/);
    expect(existsSync(file)).toBe(false);
  });

  it('roles delete: a 200 text/html is an unknown outcome, not "deleted role undefined"', async () => {
    const s = await server();
    s.answer(onlyChanges(answers.raw(200, HTML, 'text/html')));
    const result = await runInProcess(['roles', 'delete', 'fx-desk', '--yes'], env(s.url));
    expect(result.code).toBe(1);
    // The 200 said it was accepted, in a form svc cannot read (session 20): check, never "failed".
    expect(result.stderr).toContain(
      "the server's answer to DELETE /v1/roles/role_1 is not a JSON object (text/html); svc saved and printed nothing, but the server answered 200 and may have made the change: check before running the command again",
    );
    expect(result.stderr).not.toContain('undefined');
  });

  it.each([
    ['JSON null', answers.raw(200, 'null', 'application/json'), 'JSON null'],
    ['an empty body', answers.raw(200, '', 'application/json'), 'an empty body'],
    ['a JSON string', answers.raw(200, '"ok"', 'application/json'), 'a JSON string'],
    ['no content type and HTML', answers.raw(200, HTML), 'a body that is not JSON'],
  ])('svc me over %s exits 1 naming it, never "a bug in svc"', async (_name, answer, named) => {
    const s = await server();
    s.answer(answer);
    const result = await runInProcess(['me'], env(s.url));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(named);
    expect(result.stderr).not.toContain('bug in svc');
  });

  it.each([
    [
      'a well-ended truncated document',
      answers.raw(200, '{"items":[{"id":"t1","slug":"a"', 'application/json'),
    ],
    ['a connection closed mid-body', answers.cutOff(200, '{"items":[{"id":"t1"', 4096)],
    ['a page without items', answers.json(200, { next_cursor: null })],
  ])('tenants ls --all over %s exits 1, not 0 with no output', async (_name, answer) => {
    const s = await server();
    s.answer(answer);
    const result = await runInProcess(['tenants', 'ls', '--all'], env(s.url, { SVC_MAX_RETRIES: '1' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .+\n$/);
    expect(result.stderr).not.toContain('cannot reach');
    expect(result.stderr).not.toContain('bug in svc');
  });

  it('an answer over the size cap is an error, read no further than the cap, and not retried', async () => {
    const s = await server();
    s.answer(answers.streamed(200, 32 * 1024 * 1024));
    const result = await runInProcess(['me'], env(s.url, { SVC_MAX_RESPONSE_BYTES: '1048576' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('larger than 1 MiB');
    expect(result.stderr).toContain('SVC_MAX_RESPONSE_BYTES');
    expect(result.stderr).not.toContain('cannot reach');
    expect(s.seen).toHaveLength(1);
    expect(s.bytesServed()).toBeLessThan(8 * 1024 * 1024);
  });

  it('an answer announcing more than the cap is refused before it is read', async () => {
    const s = await server();
    s.answer(answers.streamed(200, 16 * 1024 * 1024, { contentLength: true }));
    const result = await runInProcess(['me'], env(s.url, { SVC_MAX_RESPONSE_BYTES: '1048576' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('larger than 1 MiB');
    expect(s.seen).toHaveLength(1);
  });

  it('a 400 MB answer stops at the default 64 MiB cap (memory: see docs/RELIABILITY.md)', async () => {
    const s = await server();
    s.answer(answers.streamed(200, 400 * 1024 * 1024));
    const result = await runInProcess(['me'], env(s.url));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('larger than 64 MiB');
    expect(s.seen).toHaveLength(1);
    expect(s.bytesServed()).toBeLessThan(100 * 1024 * 1024);
  });

  needs('GNU time').describe('memory', () => {
    it('the binary stays bounded in memory over a 400 MB answer (peak RSS, recorded in docs/RELIABILITY.md)', async () => {
      const s = await server();
      s.answer(answers.streamed(200, 400 * 1024 * 1024));
      // GNU time reports the child's peak resident set; a memory bound, not a timing. Spawned: the
      // peak RSS of a process of its own is the point.
      const result = await runProcess(
        requiredTool('GNU time'),
        ['-f', 'peak_rss_kb=%M', process.execPath, BIN, 'me'],
        {
          env: baseEnv(env(s.url)),
          cwd: ROOT,
          timeoutMs: 60_000,
        },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('larger than 64 MiB');
      const peakMb = Number(/peak_rss_kb=(\d+)/.exec(result.stderr)?.[1]) / 1024;
      console.info(
        `svc me over a 400 MB answer: exit 1, peak RSS ${peakMb.toFixed(0)} MB, ${s.seen.length} request(s)`,
      );
      expect(peakMb).toBeGreaterThan(0);
      expect(peakMb).toBeLessThan(400);
      expect(s.seen).toHaveLength(1);
    });
  });

  it.each(['0', '-1', 'lots', '1.5'])(
    'SVC_MAX_RESPONSE_BYTES=%s is a usage error (exit 2)',
    async (value) => {
      const s = await server();
      const result = await runInProcess(['me'], env(s.url, { SVC_MAX_RESPONSE_BYTES: value }));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('SVC_MAX_RESPONSE_BYTES');
      expect(s.seen).toHaveLength(0);
    },
  );

  it('svc api still shows a raw non-JSON body as it came', async () => {
    const s = await server();
    s.answer(answers.raw(200, 'plain words\n', 'text/plain'));
    const result = await runInProcess(['api', 'GET', '/v1/anything'], env(s.url));
    expect(result).toEqual({ code: 0, stdout: 'plain words\n', stderr: '' });
  });

  it('a 204 with no body is fine where no document is expected', async () => {
    const s = await server();
    s.answer(answers.raw(204, ''));
    const result = await runInProcess(['api', 'DELETE', '/v1/things/1', '--yes'], env(s.url));
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('the secret file of a real answer holds the real secret', async () => {
    const s = await server();
    s.answer(
      answers.json(201, { client_id: 'cli_1', name: 'x', client_secret: 'svc_cs_real_secret_value_1234' }),
    );
    const file = secretPath();
    const result = await runInProcess(oauthCreate(file), env(s.url));
    expect(result.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('svc_cs_real_secret_value_1234');
  });
});
