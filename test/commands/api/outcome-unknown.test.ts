/**
 * A change whose outcome svc cannot know says so, with the way to settle it (s13 api13 findings
 * 1, 2, 10, 11, 13, 16): Ctrl-C after a change was sent is not "cancelled"; `svc api` names the
 * idempotency key it sent; a POST without a key is sent once (a 5xx or a dropped connection after
 * it may have applied it); a created record's id survives a closed stdout; a Retry-After beyond
 * svc's own wait stops at once, and a long wait is said; an -H Idempotency-Key is the one HTTP
 * delivers (trimmed).
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, startInProcess, useTempDirs, virtualClock } from '../../helpers/context.js';
import { answers, type HostileServer, hostileEnv, useHostileServer } from '../../helpers/hostile.js';

const dirs = useTempDirs();
const hostile = useHostileServer();

const env = (server: HostileServer) => ({ ...dirs(), ...hostileEnv(server) });
const never = () => {};
const unavailable = answers.json(
  503,
  { error: { code: 'service_unavailable', message: 'gateway timeout upstream' } },
  { 'retry-after': '0' },
);
const KEPT = '(the platform keeps it for 24 hours)';

/** Runs argv against a server that never answers, and presses Ctrl-C once it has the request whole. */
async function interrupted(server: HostileServer, argv: string[]) {
  server.answer(never);
  const run = startInProcess(argv, env(server));
  while (server.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  run.interrupt();
  return run.done;
}

describe('Ctrl-C after a change was sent (finding 1)', () => {
  it('svc api POST: the outcome is unknown, re-run with the key it sent; exit 130', async () => {
    const server = await hostile();
    const r = await interrupted(server, ['api', 'POST', '/v1/reconciliations', '-f', 'name=x']);
    const key = server.seen[0]!.headers['idempotency-key'];
    expect(key).toMatch(/^svc_/);
    expect(r.code).toBe(130);
    expect(r.stderr).toBe(
      `error: interrupted after the request was sent, so the outcome is unknown: the platform may have made this change; re-run with -H 'Idempotency-Key: ${key}' to get the same answer without making the change twice ${KEPT}\n`,
    );
  });

  it('svc records create: re-run with the idempotency_key in the data; --json says outcome unknown', async () => {
    const server = await hostile();
    const r = await interrupted(server, [
      'records',
      'create',
      'reconciliations',
      '--data',
      '{"name":"m"}',
      '--json',
    ]);
    const key = JSON.parse(server.seen[0]!.body).idempotency_key;
    expect(r.code).toBe(130);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'interrupted',
        message:
          'interrupted after the request was sent, so the outcome is unknown: the platform may have made this change',
        exit_code: 130,
        hint: `re-run with "idempotency_key":"${key}" in the data to get the same answer without creating a second record ${KEPT}`,
        outcome: 'unknown',
      },
    });
  });

  it('svc api PATCH without a key: the outcome is unknown, check before running again', async () => {
    const server = await hostile();
    const r = await interrupted(server, ['api', 'PATCH', '/v1/reconciliations/rec_1', '-f', 'amount=2.00']);
    expect(r.code).toBe(130);
    expect(r.stderr).toBe(
      'error: interrupted after the request was sent, so the outcome is unknown: the platform may have made this change; check whether it was made before running the command again\n',
    );
  });

  it('a GET is still cancelled', async () => {
    const server = await hostile();
    const r = await interrupted(server, ['api', '/v1/reconciliations']);
    expect([r.code, r.stderr]).toEqual([130, 'error: interrupted; the request was cancelled\n']);
  });
});

describe('svc api POST whose answer was lost names its key (finding 2)', () => {
  it('human and --json, after every retry with the one key', async () => {
    const server = await hostile();
    server.answer(unavailable);
    const human = await runInProcess(['api', 'POST', '/v1/reconciliations', '-f', 'name=lost'], env(server), {
      clock: virtualClock(),
    });
    const keys = new Set(server.seen.map((s) => s.headers['idempotency-key']));
    expect([server.seen.length, keys.size]).toEqual([4, 1]);
    const [key] = keys;
    const hint = `re-run with -H 'Idempotency-Key: ${key}' to get the same answer without making the change twice ${KEPT}`;
    expect(human.code).toBe(1);
    expect(human.stderr).toBe(
      `error: gateway timeout upstream, so the outcome is unknown: the platform may have made this change (HTTP 503, service_unavailable); ${hint}\n`,
    );
    server.seen.length = 0;
    const json = await runInProcess(
      ['api', 'POST', '/v1/reconciliations', '-f', 'name=lost', '-H', 'Idempotency-Key: mine-1', '--json'],
      env(server),
      { clock: virtualClock() },
    );
    expect(JSON.parse(json.stderr).error).toMatchObject({
      outcome: 'unknown',
      hint: `re-run with -H 'Idempotency-Key: mine-1' to get the same answer without making the change twice ${KEPT}`,
    });
  });
});

describe('a change sent without an idempotency key is sent once (finding 13)', () => {
  it.each([
    ['a POST outside /v1', ['api', 'POST', '/v2/payments', '-f', 'amount=100.00']],
    ['a sandbox control', ['api', 'POST', '/_sandbox/webhooks/events', '-f', 'a=1']],
    ['the OAuth token endpoint', ['api', 'POST', '/v1/oauth/token', '-f', 'grant_type=x']],
    ['a PATCH', ['api', 'PATCH', '/v1/reconciliations/rec_1', '-f', 'amount=2.00']],
  ])('%s answered 503: one attempt, outcome unknown', async (_name, argv) => {
    const server = await hostile();
    server.answer(unavailable);
    const r = await runInProcess(argv, env(server), { clock: virtualClock() });
    expect(server.seen.length).toBe(1);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: gateway timeout upstream, so the outcome is unknown: the platform may have made this change (HTTP 503, service_unavailable); check whether it was made before running the command again\n',
    );
  });

  it('a non-JSON --input to /v1 dropped after it was read: one attempt', async () => {
    const server = await hostile();
    server.answer((_req, res) => res.socket?.destroy());
    const r = await runInProcess(
      ['api', 'POST', '/v1/imports', '-H', 'Content-Type: text/csv', '--input', '-'],
      env(server),
      { clock: virtualClock(), stdin: 'account,amount\nACC-1,100.00\n' },
    );
    expect(server.seen.length).toBe(1);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: the connection to http:\/\/127\.0\.0\.1:\d+ failed after the request was sent: [^\n]+, so the outcome is unknown: the platform may have made this change; check whether it was made before running the command again\n$/,
    );
  });

  it('a 429 said the request was not processed: retried', async () => {
    const server = await hostile();
    server.answer((req, res, received, hit) =>
      (hit === 1
        ? answers.json(429, { error: { code: 'rate_limited', message: 'slow' } })
        : answers.json(201, { ok: 1 }))(req, res, received, hit),
    );
    const r = await runInProcess(['api', 'POST', '/v2/payments', '-f', 'amount=1'], env(server), {
      clock: virtualClock(),
    });
    expect([r.code, server.seen.length]).toEqual([0, 2]);
  });
});

describe('a keyed DELETE, PUT and keyed POST are still retried on 503', () => {
  it('svc api PUT (idempotent by HTTP): retried', async () => {
    const server = await hostile();
    server.answer(unavailable);
    await runInProcess(['api', 'PUT', '/_sandbox/faults', '-F', 'latency_ms=0'], env(server), {
      clock: virtualClock(),
    });
    expect(server.seen.length).toBe(4);
  });
});

describe('a Retry-After longer than svc waits (finding 11)', () => {
  const limited = (after: string) =>
    answers.json(429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': after });

  it('stops at once, and says to wait what the server asked', async () => {
    const server = await hostile();
    server.answer(limited('3600'));
    const clock = virtualClock();
    const r = await runInProcess(['api', '/v1/r3600'], env(server), { clock });
    expect([server.seen.length, clock.waits]).toEqual([1, []]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: slow down (HTTP 429, rate_limited); the server limits how fast it is called and asks for a longer wait than svc makes by itself (60 s): wait 3600 s (the server asks for that in Retry-After) and run the command again\n',
    );
  });

  it('a wait of more than 2 s is said on stderr (not in --json)', async () => {
    const server = await hostile();
    server.answer(limited('30'));
    const clock = virtualClock();
    const r = await runInProcess(['api', '/v1/r30'], env(server), { clock });
    expect(clock.waits).toEqual([30_000, 30_000, 30_000]);
    expect(r.stderr).toBe(
      [
        'rate limited (HTTP 429); retrying in 30 s (1 of 3)',
        'rate limited (HTTP 429); retrying in 30 s (2 of 3)',
        'rate limited (HTTP 429); retrying in 30 s (3 of 3)',
        "error: slow down (HTTP 429, rate_limited); the server limits how fast it is called and svc's retries ran out: wait 30 s (the server asks for that in Retry-After) and run the command again\n",
      ].join('\n'),
    );
    const json = await runInProcess(['api', '/v1/r30', '--json'], env(server), { clock: virtualClock() });
    expect(Object.keys(JSON.parse(json.stderr))).toEqual(['error']);
    const debug = await runInProcess(['api', '/v1/r30', '--json', '--debug'], env(server), {
      clock: virtualClock(),
    });
    expect(debug.stderr).toContain('\n! rate limited (HTTP 429); retrying in 30 s (1 of 3)\n');
  });
});

describe('a closed stdout after a create names what was created (finding 10)', () => {
  it('… answered 201: created rec_… (request req_…)', async () => {
    const server = await hostile();
    server.answer(answers.json(201, { id: 'rec_123', name: 'p' }, { 'x-request-id': 'req_9' }));
    const r = await runInProcess(
      ['records', 'create', 'reconciliations', '--data', '{"name":"p"}', '--json'],
      env(server),
      {
        stdoutFails: 'EPIPE',
      },
    );
    expect(r.code).toBe(141);
    expect(JSON.parse(r.stderr).error.message).toBe(
      'stdout closed, but the change was made: POST /v1/reconciliations answered 201: created rec_123 (request req_9)',
    );
  });
});

describe('-H Idempotency-Key with surrounding space (finding 16)', () => {
  it('is sent as HTTP delivers it: one key, in the header and the body', async () => {
    const server = await hostile();
    server.answer(answers.json(201, { id: 'rec_1' }));
    const r = await runInProcess(
      ['api', 'POST', '/v1/reconciliations', '-f', 'name=k', '-H', 'Idempotency-Key: abc '],
      env(server),
    );
    expect(r.code, r.stderr).toBe(0);
    const [seen] = server.seen;
    expect([
      seen!.rawHeaders[seen!.rawHeaders.indexOf('idempotency-key') + 1],
      JSON.parse(seen!.body).idempotency_key,
    ]).toEqual(['abc', 'abc']);
  });
});

describe('svc api PUT and DELETE after a lost answer (review s13 http #6)', () => {
  it('the help says which changes are sent again and which once', async () => {
    const r = await runInProcess(['api', '--help'], env(await hostile()));
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).not.toContain('A change without a key is not sent twice');
    expect(help).toContain(
      'A POST or PATCH without a key is not sent twice: after a 5xx, a timeout or a dropped connection its outcome is unknown after one attempt. PUT and DELETE are idempotent: they are sent again (up to 3 retries), as GET is; a DELETE whose first answer was lost and whose retry finds nothing says the lost attempt most likely deleted it.',
    );
  });

  it('a DELETE whose first answer was lost and whose retry finds nothing says it was most likely deleted', async () => {
    const server = await hostile();
    server.answer((req, res, received, hit) =>
      hit === 1
        ? unavailable(req, res, received, hit)
        : answers.json(404, { error: { code: 'not_found', message: 'role not found' } })(
            req,
            res,
            received,
            hit,
          ),
    );
    const r = await runInProcess(['api', 'DELETE', '/v1/roles/role_x', '--yes'], env(server), {
      clock: virtualClock(),
    });
    expect(server.seen.map((s) => s.method)).toEqual(['DELETE', 'DELETE']);
    expect(r.stdout).toBe(
      '{\n  "error": {\n    "code": "not_found",\n    "message": "role not found"\n  }\n}\n',
    );
    expect([r.code, r.stderr]).toEqual([
      1,
      "error: the platform's answer to DELETE was lost (HTTP 503) and its retry found nothing to delete (HTTP 404 not_found); most likely the lost attempt made the change; check the audit trail (svc audit ls) before running the command again\n",
    ]);
    // --json: the one field of every error after a lost answer (review24f M1).
    server.answer((req, res, received, hit) =>
      hit === 3
        ? unavailable(req, res, received, hit)
        : answers.json(404, { error: { code: 'not_found', message: 'role not found' } })(
            req,
            res,
            received,
            hit,
          ),
    );
    const j = await runInProcess(['api', 'DELETE', '/v1/roles/role_y', '--json', '--yes'], env(server), {
      clock: virtualClock(),
    });
    expect([j.code, JSON.parse(j.stderr).error.code, JSON.parse(j.stderr).error.lost_answer]).toEqual([
      1,
      'gone_after_lost_answer',
      'HTTP 503',
    ]);
  });
});

describe('svc api PUT: a refusal after a lost answer (review s13 http #6)', () => {
  it('says an earlier attempt may have acted', async () => {
    const server = await hostile();
    server.answer((req, res, received, hit) =>
      hit === 1
        ? unavailable(req, res, received, hit)
        : answers.json(409, { error: { code: 'conflict', message: 'already set' } })(req, res, received, hit),
    );
    const r = await runInProcess(['api', 'PUT', '/v1/things/t1', '-f', 'a=1'], env(server), {
      clock: virtualClock(),
    });
    expect([r.code, r.stderr]).toEqual([
      6,
      "error: an earlier attempt's answer was lost (HTTP 503) and it may have acted; this answer may describe what it left: already set (HTTP 409, conflict)\n",
    ]);
  });

  it('--json: the same words and "lost_answer", the one shape of every command (review24f M1)', async () => {
    const server = await hostile();
    server.answer((req, res, received, hit) =>
      hit === 1
        ? unavailable(req, res, received, hit)
        : answers.json(409, { error: { code: 'conflict', message: 'already set' } })(req, res, received, hit),
    );
    const r = await runInProcess(['api', 'PUT', '/v1/things/t1', '-f', 'a=1', '--json'], env(server), {
      clock: virtualClock(),
    });
    expect([r.code, JSON.parse(r.stderr)]).toEqual([
      6,
      {
        error: {
          code: 'conflict',
          message:
            "an earlier attempt's answer was lost (HTTP 503) and it may have acted; this answer may describe what it left: already set",
          exit_code: 6,
          status: 409,
          lost_answer: 'HTTP 503',
        },
      },
    ]);
  });
});
