import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DlqEntry } from '../../src/api/schemas/webhooks.js';
import { tenantId } from '../../src/sandbox/seed.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { advanceClock, call } from './sandbox.js';
import { type Answer, gate, startTarget } from './targets.js';

export const TENANT = tenantId('acme-treasury');

/**
 * The sandbox's delivery request timeout for a file whose targets answer: far above a local
 * target's answer on a loaded machine. At 400 ms for a whole file, targets that answer at once
 * timed out in a full run under a load of 20 (session 29). A test that needs a timeout to happen
 * sets a short one for itself (PUT /_sandbox/webhooks/engine {request_timeout_ms}) against a
 * target that never answers, so its verdict cannot change with the machine's speed.
 */
export const ANSWERED_TIMEOUT_MS = 30_000;
let keys = 0;
const key = () => `test-${process.pid}-${Date.now()}-${++keys}`;

/** The admin's call to the sandbox in Acme Treasury. */
export function admin(sandbox: Sandbox, method: string, path: string, body?: Record<string, unknown>) {
  const withKey =
    body && method === 'POST' && body.idempotency_key === undefined
      ? { ...body, idempotency_key: key() }
      : body;
  return call(sandbox, method, path, {
    token: sandbox.adminToken,
    tenant: TENANT,
    ...(withKey === undefined ? {} : { body: withKey }),
  });
}

export async function createWebhook(
  sandbox: Sandbox,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const r = await admin(sandbox, 'POST', '/v1/webhooks', {
    url,
    event_types: ['exception.sla.breached', 'webhook.test'],
    ...extra,
  });
  if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${r.text}`);
  return { id: r.body.id, secret: r.body.secret };
}

export async function emit(
  sandbox: Sandbox,
  webhookId: string,
  count = 1,
  type = 'exception.sla.breached',
): Promise<{ events: Array<{ id: string; delivery_ids: string[] }> }> {
  const r = await call(sandbox, 'POST', '/_sandbox/webhooks/events', {
    body: { type, webhook_id: webhookId, count },
  });
  if (r.status !== 201) throw new Error(`emit: ${r.status} ${r.text}`);
  return r.body;
}

export async function settle(sandbox: Sandbox, timeoutMs = 20_000): Promise<void> {
  const r = await call(sandbox, 'POST', '/_sandbox/webhooks/settle', { body: { timeout_ms: timeoutMs } });
  if (!r.body.settled) throw new Error(`deliveries did not settle: ${r.text}`);
}

export async function delivery(sandbox: Sandbox, webhookId: string, deliveryId: string) {
  const r = await admin(sandbox, 'GET', `/v1/webhooks/${webhookId}/deliveries/${deliveryId}`);
  if (r.status !== 200) throw new Error(`get delivery: ${r.status} ${r.text}`);
  return r.body;
}

/** How many dead-letter entries of a webhook were replayed how many times: `{ 1: 400 }`. */
export async function replayCounts(sandbox: Sandbox, webhookId: string): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  let cursor: string | null = null;
  do {
    const page: { items: Array<{ replay_count: number }>; next_cursor: string | null } = (
      await admin(
        sandbox,
        'GET',
        `/v1/webhooks/${webhookId}/dlq?status=all&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      )
    ).body;
    for (const entry of page.items) counts[entry.replay_count] = (counts[entry.replay_count] ?? 0) + 1;
    cursor = page.next_cursor;
  } while (cursor);
  return counts;
}

/** Polls `done` every 20 ms until it holds (a test's own timeout ends a wait that never does). */
export async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** A webhook's dead-letter entries with a status (`queued`, `replayed`…), up to 200. */
export async function dlqEntries(sandbox: Sandbox, webhookId: string, status: string): Promise<DlqEntry[]> {
  return (await admin(sandbox, 'GET', `/v1/webhooks/${webhookId}/dlq?status=${status}&limit=200`)).body.items;
}

/** Every entry of a webhook's dead-letter queue with `status`, page after page (dlqEntries: the first 200). */
export async function everyDlqEntry(
  sandbox: Sandbox,
  webhookId: string,
  status = 'all',
): Promise<DlqEntry[]> {
  const all: DlqEntry[] = [];
  let cursor: string | null = null;
  do {
    const query = `status=${status}&limit=200${cursor ? `&cursor=${cursor}` : ''}`;
    const page: { items: DlqEntry[]; next_cursor: string | null } = (
      await admin(sandbox, 'GET', `/v1/webhooks/${webhookId}/dlq?${query}`)
    ).body;
    all.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

/**
 * A webhook on a target that answers `answer`, with `count` events dead-lettered by the sandbox's
 * control: what a replay of its queue works on. `extra` is the webhook's other fields.
 */
export async function deadLetteredQueue(
  sandbox: Sandbox,
  answer: Answer,
  count: number,
  extra: Record<string, unknown> = {},
) {
  const target = await startTarget(() => answer);
  const webhook = (await createWebhook(sandbox, target.url, extra)).id;
  await call(sandbox, 'POST', '/_sandbox/webhooks/dead-letters', { body: { webhook_id: webhook, count } });
  return { webhook, target, entries: await dlqEntries(sandbox, webhook, 'queued') };
}

interface Runs {
  run(
    argv: string[],
    options?: { signal?: AbortSignal; env?: Record<string, string> },
  ): Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * Two queued entries (one attempt each) and a `replay --dlq --wait --concurrency 1` run cut by
 * Ctrl-C once the first is replayed, while the target holds its delivery's answer (in flight, so
 * the cut falls in the follow), its delivery then delivered: a run to resume. `answer` is the
 * target's, which a test changes; `path` is the run's journal, `started` its start.
 */
export async function cutReplayRun(
  sandbox: Sandbox,
  svc: Runs & { journals: string },
  env: Record<string, string> = {},
) {
  const held = gate();
  const answer: Answer = { status: 204, until: held.until };
  const { webhook, target, entries } = await deadLetteredQueue(sandbox, answer, 2, { max_attempts: 1 });
  const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1'];
  const journals = () =>
    existsSync(svc.journals) ? readdirSync(svc.journals).filter((f) => f.endsWith('.ndjson')) : [];
  const before = new Set(journals());
  const first = await interruptedRun(svc, argv, target, 1, env, held.open);
  const made = JSON.parse(first.stdout.split('\n')[0]!).new_delivery_id as string;
  const names = journals().filter((name) => !before.has(name));
  if (names.length !== 1) throw new Error(`one new journal expected: ${names.join(', ')}`);
  const path = join(svc.journals, names[0]!);
  const started = JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!).started_at as string;
  await until(async () => (await delivery(sandbox, webhook, made)).status === 'delivered');
  const [e1, e2] = entries as [DlqEntry, DlqEntry];
  return { answer, webhook, target, argv, made, path, started, e1, e2 };
}

/**
 * `svc ARGV --ndjson` interrupted (Ctrl-C) once `target` has received `received` requests: the
 * cut run of a replay, which a test then resumes (with the same `env`). Exit 130 is checked.
 * `cut` runs as soon as Ctrl-C is sent, before the run has ended: where the target holds the
 * delivery (a gate), it is let go there, not once the run has ended: under load that end took
 * longer than the sandbox's attempt timeout (10 s), and the held delivery failed instead.
 */
export async function interruptedRun(
  svc: Runs,
  argv: string[],
  target: { received: unknown[] },
  received = 1,
  env: Record<string, string> = {},
  cut: () => void = () => {},
) {
  const controller = new AbortController();
  const running = svc.run([...argv, '--ndjson'], { signal: controller.signal, env });
  await until(() => target.received.length >= received);
  controller.abort();
  cut();
  const ended = await running;
  if (ended.code !== 130) throw new Error(`the cut run ended ${ended.code}, not 130: ${ended.stderr}`);
  return ended;
}

/**
 * Moves the sandbox's clock 2 s on: past the second a run started in (its anchor; the API's times
 * are whole seconds), so what is dead-lettered from now on is newer than the run, without waiting
 * for that second to pass on the real clock. The anchor is this machine's second while the two
 * clocks are under a minute apart (platformTime), as they stay for a file's few calls of this.
 */
export const pastRunStart = (sandbox: Sandbox): Promise<void> => advanceClock(sandbox, 2);

/** The journals (`.ndjson`) a bulk run left in `dir` (a state directory's journals); none when it is not there. */
export const journalFiles = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.ndjson')) : [];

/** A bulk summary with its duration as `(T)`: what exact-output assertions compare. */
export const timeless = (stderr: string): string => stderr.replace(/ \([\d.]+ s\)\n/, ' (T)\n');

/** A webhook as the platform has it now (the admin's read in Acme Treasury). */
export const webhookNow = async (sandbox: Sandbox, id: string) =>
  (await admin(sandbox, 'GET', `/v1/webhooks/${id}`)).body;
