// Over 300 lines: the webhooks verbs against one sandbox with fast delivery, one behaviour per test.
/**
 * The webhooks verbs against a sandbox with fast delivery time: ls, deliveries, dlq, test,
 * replay and their usage errors, in-process. `svc webhooks listen` runs as a process (it serves
 * until Ctrl-C, and the test sends it real deliveries and SIGINT).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { background } from '../helpers/background.js';
import { runInProcess } from '../helpers/context.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { sandboxEnv } from '../helpers/svc.js';
import { startTarget } from '../helpers/targets.js';
import { useTempDir } from '../helpers/temp.js';
import { ANSWERED_TIMEOUT_MS, admin, createWebhook, emit, settle } from '../helpers/webhooks.js';

// Every target here answers (a spawned `webhooks listen` among them): the request timeout is far
// above need (ANSWERED_TIMEOUT_MS).
const sandbox = useSandbox({ webhooks: { timeScale: 0.0005, requestTimeoutMs: ANSWERED_TIMEOUT_MS } });
const dir = useTempDir('svc-wh-cli-');
const env = sandboxEnv(sandbox, { NO_COLOR: '1' });
const SEEDED = SEEDED_WEBHOOKS.exceptions;
/** svc in-process, as a pipe sees it, on the sandbox's (real) clock. */
const svc = (args: string[], options: { env?: Record<string, string> } = {}) =>
  runInProcess(args, { SVC_CACHE_DIR: join(dir, 'cache'), ...env, ...options.env }, { now: Date.now() });

const rows = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => l.split('\t'));

describe('svc webhooks ls, deliveries, dlq', () => {
  it('ls: a table on a terminal, tab-separated rows in a pipe, the API objects with --json', async () => {
    const table = await runInProcess(['webhooks', 'ls'], env, {
      tty: { stdout: true },
      columns: 200,
      now: Date.now(),
    });
    expect(table.stdout.split('\n')[0]).toMatch(
      /^ID {2,}URL {2,}EVENTS {2,}STATUS {2,}(ATTEMPTS {2,})?(DESCRIPTION {2,})?CREATED$/,
    );
    expect(table.stdout).toContain(`${SEEDED}  http://127.0.0.1:9/svc/exceptions`);
    const plain = await svc(['webhooks', 'ls'], { env });
    expect(rows(plain.stdout)[0]).toEqual([
      SEEDED,
      'http://127.0.0.1:9/svc/exceptions',
      'exception.sla.breached,exception.created,exception.assigned',
      'enabled',
      '5',
      'Exceptions to the on-call bridge',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    ]);
    const json = JSON.parse((await svc(['webhooks', 'ls', '--json'], { env })).stdout);
    expect(json[0]).toMatchObject({
      id: SEEDED,
      event_types: ['exception.sla.breached', 'exception.created', 'exception.assigned'],
    });
    expect(JSON.stringify(json)).not.toContain('whsec_');
  });

  it('deliveries: the counts above the table; --status, --limit and --all; an array with --json, the counts with --summary', async () => {
    const table = await runInProcess(['webhooks', 'deliveries', SEEDED], env, {
      tty: { stdout: true },
      columns: 200,
      now: Date.now(),
    });
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('6 deliveries: 3 delivered, 3 failed, 0 in flight');
    expect(lines[1]).toMatch(
      /^ID {2,}EVENT {2,}STATUS {2,}ATTEMPTS {2,}HTTP {2,}ERROR {2,}NEXT RETRY {2,}ATTEMPTED/,
    );
    expect(lines).toHaveLength(8);
    expect(lines[2]).toMatch(
      /^dlv_\w+ +exception\.sla\.breached +failed +5\/5 +- +connection_timeout +- +\d+ hours ago/,
    );
    const failed = await svc(['webhooks', 'deliveries', SEEDED, '--status', 'failed', '--limit', '2'], {
      env,
    });
    expect(failed.stderr).toMatch(
      /^2 shown; more with: svc webhooks deliveries \S+ --status failed --cursor \S+ {2}\(or --all\)\n$/,
    );
    expect(rows(failed.stdout).map((r) => r[2])).toEqual(['failed', 'failed']);
    const json = JSON.parse((await svc(['webhooks', 'deliveries', SEEDED, '--json'], { env })).stdout);
    expect(json).toHaveLength(6);
    expect(json[0]).toMatchObject({ webhook_id: SEEDED, status: expect.any(String) });
    const summary = await svc(['webhooks', 'deliveries', SEEDED, '--summary', '--json'], { env });
    expect(JSON.parse(summary.stdout)).toEqual({
      total: 6,
      delivered: 3,
      failed: 3,
      in_flight: 0,
      recovered: 0,
    });
    const counts = await svc(['webhooks', 'deliveries', SEEDED, '--summary'], { env });
    expect(counts.stdout).toBe('total\t6\ndelivered\t3\nfailed\t3\nrecovered\t0\nin flight\t0\n');
    const ndjson = (await svc(['webhooks', 'deliveries', SEEDED, '--ndjson'], { env })).stdout
      .trimEnd()
      .split('\n');
    expect(ndjson.map((l) => JSON.parse(l).id)).toEqual(json.map((d: { id: string }) => d.id));
    const all = await svc(['webhooks', 'deliveries', SEEDED, '--all', '--limit', '4', '--ndjson'], { env });
    expect(
      all.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(json.slice(0, 4).map((d: { id: string }) => d.id));
  });

  it('dlq: queued entries oldest first; --all streams; filters', async () => {
    const plain = await svc(['webhooks', 'dlq', SEEDED], { env });
    const entries = rows(plain.stdout);
    expect(entries).toHaveLength(3);
    expect(entries.map((r) => r[2])).toEqual(Array(3).fill('exception.sla.breached'));
    expect(entries.map((r) => r[6])).toEqual(['queued', 'queued', 'queued']);
    expect([...entries.map((r) => r[7])].sort()).toEqual(entries.map((r) => r[7]));
    const all = await svc(['webhooks', 'dlq', SEEDED, '--all', '--ndjson'], { env });
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(3);
    const one = await svc(['webhooks', 'dlq', SEEDED, '--limit', '1', '--ndjson'], { env });
    expect(one.stdout.trimEnd().split('\n')).toHaveLength(1);
    const recent = await svc(['webhooks', 'dlq', SEEDED, '--since', '1d'], { env });
    expect(rows(recent.stdout)).toHaveLength(1);
    // the queue holds three entries of another kind: not "the dead-letter queue is empty"
    const none = await runInProcess(['webhooks', 'dlq', SEEDED, '--event-type', 'exception.created'], env, {
      tty: { stdout: true },
      columns: 120,
      now: Date.now(),
    });
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: 'no queued dead-letter entry matches\n' });
  });

  it.each<[string[], number, string | RegExp, string?]>([
    [
      ['webhooks', 'deliveries', SEEDED, '--limit', '0'],
      2,
      'error: --limit must be an integer from 1 to 10000000, got "0"\n',
    ],
    [
      ['webhooks', 'deliveries', SEEDED, '--summary', '--all'],
      2,
      'error: --summary prints the counts only, over every delivery; leave out --all, --limit, --cursor and --status\n',
    ],
    [
      // attack27b F10: --status was taken and ignored.
      ['webhooks', 'deliveries', SEEDED, '--summary', '--status', 'delivered'],
      2,
      'error: --summary prints the counts only, over every delivery; leave out --all, --limit, --cursor and --status\n',
    ],
    [
      ['webhooks', 'deliveries', SEEDED, '--status', 'lost'],
      2,
      "error: option '--status <status>' argument 'lost' is invalid. Allowed choices are pending, retrying, delivered, failed, recovered, in_flight; see `svc webhooks deliveries --help`\n",
    ],
    [
      ['webhooks', 'dlq', SEEDED, '--since', 'yesterday'],
      2,
      'error: --since takes an ISO 8601 time (2026-01-15T09:30:00Z) or a duration back from now (30m, 2h, 7d), got "yesterday"\n',
    ],
    [
      ['webhooks', 'dlq', SEEDED, '--since', '2026-01-15T11:00:00Z', '--until', '2026-01-15T10:00:00Z'],
      2,
      'error: --since (2026-01-15T11:00:00Z) must be before --until (2026-01-15T10:00:00Z)\n',
    ],
    [
      ['webhooks', 'deliveries', 'wh_nope'],
      5,
      /^error: webhook wh_nope not found \(HTTP 404, not_found, request req_[0-9a-f]+\); see `svc webhooks ls` for the webhooks of the tenant\n$/,
    ],
    [
      ['webhooks', 'replay', SEEDED],
      2,
      'error: name the deliveries to replay, or pass --dlq to replay the dead-letter queue\n',
    ],
    [
      ['webhooks', 'replay', SEEDED, 'dlv_1', '--dlq'],
      2,
      'error: give delivery ids or --dlq, not both; svc webhooks replay WEBHOOK DELIVERY... replays those; --dlq replays the dead-letter queue\n',
    ],
    [['webhooks', 'replay', SEEDED, 'dlv_1', '--since', '1h'], 2, 'error: --since only works with --dlq\n'],
    [
      ['webhooks', 'replay', SEEDED, '--dlq', '--concurrency', '0'],
      2,
      'error: --concurrency must be an integer from 1 to 64, got "0"\n',
    ],
    [
      ['webhooks', 'replay', SEEDED, 'dlv_nope'],
      5,
      /^error: delivery dlv_nope not found \(HTTP 404, not_found, request req_[0-9a-f]+\); see `svc webhooks deliveries ls wh_[0-9a-f]{24}` for its deliveries\n$/,
      // A replay is a bulk run: its one result row still goes to stdout.
      'failed\tdlv_nope\t\t\t\tdelivery dlv_nope not found\n',
    ],
    [
      ['webhooks', 'listen', '--forward-to', 'ftp://x'],
      2,
      'error: --forward-to must be an http or https URL, got "ftp://x"\n',
    ],
    [
      ['webhooks', 'listen'],
      2,
      'error: no webhook signing secret; pass --secret-file FILE or set SVC_WEBHOOK_SECRET (secrets are never flag values)\n',
    ],
    [
      ['sandbox', 'start', '--webhook-time-scale', 'fast'],
      2,
      'error: --webhook-time-scale must be a number from 0 to 1000, got "fast"\n',
    ],
    [
      ['sandbox', 'start', '--webhook-timeout', '0'],
      2,
      'error: --webhook-timeout must be an integer from 1 to 300000, got "0"\n',
    ],
  ])('%j fails with exit %i and one line', async (args, code, stderr, stdout = '') => {
    // The clock at FIXED_NOW: "1h" and "2h" back are exact times.
    const r = await runInProcess(args, { SVC_CACHE_DIR: join(dir, 'cache'), ...env });
    if (typeof stderr === 'string') expect(r).toEqual({ code, stdout: '', stderr });
    else {
      expect([r.code, r.stdout]).toEqual([code, stdout]);
      expect(r.stderr).toMatch(stderr);
    }
  });
});

describe('svc webhooks test', () => {
  it('test: reports a delivered test event (exit 0), or the failure cause and its remedy (exit 1)', async () => {
    const good = await startTarget(() => ({ status: 200 }));
    const webhook = await createWebhook(sandbox(), good.url, { max_attempts: 1 });
    const ok = await svc(['webhooks', 'test', webhook.id], { env });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe(
      '✓ test event in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 delivered on attempt 1 (HTTP 200)\n',
    );
    expect(rows(ok.stdout).map((r) => r[0])).toEqual([
      'event',
      'delivery',
      'status',
      'attempts',
      'http',
      'error',
      'next retry',
    ]);
    expect(rows(ok.stdout)[2]).toEqual(['status', 'delivered']);
    const bad = await startTarget(() => ({ status: 413 }));
    const failing = await createWebhook(sandbox(), bad.url, { max_attempts: 1 });
    const r = await svc(['webhooks', 'test', failing.id], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error: the test delivery failed: payload_too_large: the target answered 413 Payload Too Large; the payload exceeded the target's body limit: raise the limit or split events\n",
    );
  });
});

describe('bulk replay on a terminal', () => {
  it('draws a progress bar on stderr and a table of new delivery ids on stdout', async () => {
    const webhook = await createWebhook(sandbox(), 'http://127.0.0.1:9/x');
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook.id, count: 3 },
    });
    const r = await runInProcess(
      ['webhooks', 'replay', webhook.id, '--dlq', '--no-wait'],
      { ...env, SVC_STATE_DIR: join(dir, 'state') },
      { tty: true },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`\\r\\u001b\\[2Kreplaying ${webhook.id} \\[#+\\.*\\] 1/3 33%`));
    expect(r.stderr).toMatch(
      /✓ 3 replayed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \(\d+\.\d s\)\ntheir deliveries were not followed: .+\n$/,
    );
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RESULT +DELIVERY +NEW DELIVERY +EVENT +OUTCOME +DETAIL$/);
    expect(
      lines.slice(1).every((l) => /^ok +dlv_\w+ +dlv_\w+ +exception\.sla\.breached +- +-$/.test(l)),
    ).toBe(true);
    expect(lines).toHaveLength(4);
  });
});

describe('svc webhooks listen', () => {
  it('answers 2xx to valid deliveries, 400 to invalid ones, warns on a repeated event, refuses other methods', async () => {
    const secret = 'whsec_listen_test';
    writeFileSync(join(dir, 'secret'), secret);
    const listen = background(
      ['webhooks', 'listen', '--port', '0', '--secret-file', join(dir, 'secret')],
      env,
    );
    const url = (await listen.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const body =
      '{"id":"evt_L1","type":"webhook.test","created_at":"2026-01-01T00:00:00Z","tenant_id":"t","data":{}}';
    const now = Math.floor(Date.now() / 1000);
    const post = (headers: Record<string, string>, payload = body, method = 'POST') =>
      fetch(`${url}/hooks`, { method, headers, ...(method === 'POST' ? { body: payload } : {}) });
    const good = {
      'x-svc-signature': signatureHeader(secret, now, body),
      'x-svc-delivery-id': 'dlv_L',
      'x-svc-delivery-attempt': '1',
    };
    expect((await post(good)).status).toBe(200);
    expect((await post(good)).status).toBe(200);
    const forged = await post({ 'x-svc-signature': signatureHeader('whsec_other', now, body) });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toEqual({
      error: 'invalid_signature',
      reason: 'signature_mismatch',
      message: 'the signature does not match the body (wrong secret?)',
    });
    const stale = await post({ 'x-svc-signature': signatureHeader(secret, now - 3600, body) });
    expect(stale.status).toBe(400);
    expect((await post({})).status).toBe(400);
    expect((await post({}, '', 'GET')).status).toBe(405);
    await listen.waitFor(/(.*\n){6}/, 'stdout');
    expect(await listen.interrupt()).toBe(0);
    const lines = listen.stdout().trimEnd().split('\n');
    expect(lines[0]).toMatch(
      // A pipe gets the whole RFC 3339 time (a terminal HH:MM:SSZ).
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}✓ valid {4}webhook\.test {2}evt_L1 {2}dlv_L#1 {2}\d+ B {2}→ 200$/,
    );
    expect(lines[1]).toMatch(/→ 200 {2}\(repeated event\)$/);
    expect(lines[2]).toMatch(
      /✗ invalid {2}webhook\.test {2}evt_L1 {2}- {2}\d+ B {2}→ 400 {2}\(signature_mismatch: the signature does not match the body \(wrong secret\?\)\)$/,
    );
    expect(lines[3]).toMatch(
      // The listener reads its own clock a moment after `now`: a second may have ticked in between.
      /\(timestamp_outside_tolerance: the timestamp is 360[01] s before the verifier's clock, outside the tolerance of 300 s\)$/,
    );
    expect(lines[4]).toMatch(/\(no_signature_header: the request has no X-SVC-Signature header\)$/);
    expect(lines[5]).toMatch(/→ 405 {2}\(method_not_allowed: webhook deliveries are POST requests\)$/);
    expect(listen.stderr()).toContain(
      'warning: event evt_L1 was received before (a retry or a replay): receivers must handle it once\n',
    );
    expect(listen.stderr()).toMatch(/stopped after 6 requests: 2 valid, 4 invalid, 1 repeated event\n$/);
  });

  it('its 400 is classified by the platform as invalid_signature', async () => {
    writeFileSync(join(dir, 'wrong'), 'whsec_not_the_right_one');
    const listen = background(
      ['webhooks', 'listen', '--port', '0', '--secret-file', join(dir, 'wrong')],
      env,
    );
    const url = (await listen.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const webhook = await createWebhook(sandbox(), `${url}/x`, { max_attempts: 1 });
    const { events } = await emit(sandbox(), webhook.id);
    await settle(sandbox());
    const d = (
      await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/deliveries/${events[0]!.delivery_ids[0]}`)
    ).body;
    expect(d).toMatchObject({
      status: 'failed',
      last_status_code: 400,
      last_error_code: 'invalid_signature',
    });
    await listen.interrupt();
    await call(sandbox(), 'GET', '/_sandbox/health');
  });
});
