/**
 * Tables that fit the terminal (src/output/layout.ts), as the on-call engineer meets them:
 * `svc webhooks dlq W` and `svc webhooks deliveries W` at 80, 100 and 120 columns, on a terminal
 * and in a pipe, with exact output. Ids are random, so the expected text interpolates the ids the
 * sandbox holds (whole, or as their 6-character prefix with "…"); everything else is literal.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseRolesLs, runRolesLs } from '../../src/commands/roles/ls.js';
import { parseDeliveries, runDeliveries } from '../../src/commands/webhooks/deliveries/ls.js';
import { parseDlq, runDlq } from '../../src/commands/webhooks/dlq/ls.js';
import type { Context, GlobalOptions } from '../../src/context.js';
import { call, setSandboxClock, useSandboxContext } from '../helpers/sandbox.js';
import { admin, createWebhook } from '../helpers/webhooks.js';

const svc = useSandboxContext();
let webhook: string;
/** Oldest first: a connection timeout, then a 503. */
let entries: Array<{ id: string; delivery_id: string; dead_lettered_at: string }>;
let now: number;

beforeAll(async () => {
  webhook = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none')).id;
  for (const [error_code, status_code] of [
    ['connection_timeout', null],
    ['5xx_server_error', 503],
  ] as const) {
    await call(svc.sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook, count: 1, error_code, status_code },
    });
  }
  entries = (await admin(svc.sandbox(), 'GET', `/v1/webhooks/${webhook}/dlq`)).body.items;
  // Two hours after the first failure: both read "2 hours ago" (relative times are rounded). The
  // platform's clock too: svc counts them from it once it knows it (attack22 F1).
  now = Date.parse(entries[0]!.dead_lettered_at) + 2 * 3600_000;
  setSandboxClock(svc.sandbox(), now);
});

const lines = (...rows: string[]) => `${rows.join('\n')}\n`;
const short = (id: string) => `${id.slice(0, 10)}…`;
const SHORTENED = '(ids shortened to fit: --wide, a pipe or --json shows them whole)\n';

function dlq(columns: number): [string, string] {
  const [a, b] = entries as [(typeof entries)[0], (typeof entries)[0]];
  switch (columns) {
    case 80:
      return [
        lines(
          'ID           EVENT                   ERROR               STATUS  FAILED',
          `${short(a.id)}  exception.sla.breached  connection_timeout  queued  2 hours ago`,
          `${short(b.id)}  exception.sla.breached  5xx_server_error    queued  2 hours ago`,
        ),
        SHORTENED,
      ];
    case 100:
      return [
        lines(
          'ID                            EVENT                   HTTP  ERROR               STATUS  FAILED',
          `${a.id}  exception.sla.breached  -     connection_timeout  queued  2 hours ago`,
          `${b.id}  exception.sla.breached  503   5xx_server_error    queued  2 hours ago`,
        ),
        '',
      ];
    default:
      return [
        lines(
          'ID                            EVENT                   ATTEMPTS  HTTP  ERROR               STATUS  FAILED',
          `${a.id}  exception.sla.breached  5         -     connection_timeout  queued  2 hours ago`,
          `${b.id}  exception.sla.breached  5         503   5xx_server_error    queued  2 hours ago`,
        ),
        '',
      ];
  }
}

describe('svc webhooks dlq WEBHOOK fits the terminal', () => {
  it.each([80, 100, 120])(
    'at %i columns: nothing wraps, the error is whole, ids short only at 80',
    async (columns) => {
      const { ctx, stdout, stderr } = svc.context({ tty: { stdout: true }, columns, now });
      await runDlq(ctx, parseDlq(webhook, {}) as Parameters<typeof runDlq>[1]);
      expect([stdout(), stderr()]).toEqual(dlq(columns));
      for (const line of stdout().split('\n')) expect([...line].length).toBeLessThanOrEqual(columns);
    },
  );

  it('with --wide: every column, ids whole, whatever the width', async () => {
    const [a, b] = entries as [(typeof entries)[0], (typeof entries)[0]];
    const { ctx, stdout, stderr } = svc.context({
      tty: { stdout: true },
      columns: 80,
      now,
      globals: { wide: true },
    });
    await runDlq(ctx, parseDlq(webhook, {}) as Parameters<typeof runDlq>[1]);
    expect([stdout(), stderr()]).toEqual([
      lines(
        'ID                            DELIVERY                      EVENT                   ATTEMPTS  HTTP  ERROR               STATUS  FAILED       REPLAYED AS',
        `${a.id}  ${a.delivery_id}  exception.sla.breached  5         -     connection_timeout  queued  2 hours ago  -`,
        `${b.id}  ${b.delivery_id}  exception.sla.breached  5         503   5xx_server_error    queued  2 hours ago  -`,
      ),
      '',
    ]);
  });

  it.each<[string, GlobalOptions]>([
    ['a pipe', {}],
    ['a pipe with --wide', { wide: true }],
  ])('in %s: every column, tab-separated, ids whole', async (_what, globals) => {
    const [a, b] = entries as [(typeof entries)[0], (typeof entries)[0]];
    const { ctx, stdout, stderr } = svc.context({ columns: 80, now, globals });
    await runDlq(ctx, parseDlq(webhook, {}) as Parameters<typeof runDlq>[1]);
    expect([stdout(), stderr()]).toEqual([
      lines(
        [
          a.id,
          a.delivery_id,
          'exception.sla.breached',
          '5',
          '',
          'connection_timeout',
          'queued',
          a.dead_lettered_at,
          '',
        ].join('\t'),
        [
          b.id,
          b.delivery_id,
          'exception.sla.breached',
          '5',
          '503',
          '5xx_server_error',
          'queued',
          b.dead_lettered_at,
          '',
        ].join('\t'),
      ),
      '',
    ]);
  });

  it('colours statuses on a terminal, and not with NO_COLOR, in a pipe or in JSON', async () => {
    const colourful = { NO_COLOR: undefined, FORCE_COLOR: undefined };
    const terminal = svc.context({ tty: { stdout: true }, columns: 120, now, env: colourful });
    await runDlq(terminal.ctx, parseDlq(webhook, {}) as Parameters<typeof runDlq>[1]);
    expect(terminal.stdout()).toContain('\u001b[33mqueued\u001b[39m');
    for (const options of [
      { tty: { stdout: true }, columns: 120, now },
      { columns: 120, now, env: colourful },
      { tty: { stdout: true }, columns: 120, now, env: colourful, globals: { json: true } },
    ]) {
      const plain = svc.context(options);
      await runDlq(plain.ctx, parseDlq(webhook, {}) as Parameters<typeof runDlq>[1]);
      expect(plain.stdout()).not.toContain('\u001b');
    }
  });
});

describe('colour changes nothing but escapes (review23b M1: a bold header was drawn whole over a cut column)', () => {
  const run = {
    'svc webhooks dlq WEBHOOK': (ctx: Context) =>
      runDlq(ctx, parseDlq(webhook, {}) as Parameters<typeof runDlq>[1]),
    'svc roles ls --builtin': (ctx: Context) => runRolesLs(ctx, parseRolesLs({ builtin: true })),
  };
  it.each([
    ['svc webhooks dlq WEBHOOK', 44],
    ['svc roles ls --builtin', 28],
  ] as const)('%s at %i columns', async (command, columns) => {
    const colourful = svc.context({
      tty: { stdout: true },
      columns,
      now,
      env: { NO_COLOR: undefined, FORCE_COLOR: undefined },
    });
    const plain = svc.context({ tty: { stdout: true }, columns, now });
    for (const { ctx } of [colourful, plain]) await run[command](ctx);
    expect(colourful.stdout()).toContain('\u001b[1m');
    expect(colourful.stdout().replace(/\u001b\[[0-9;]*m/g, '')).toBe(plain.stdout());
  });
});

describe('svc webhooks deliveries WEBHOOK fits the terminal', () => {
  let deliveries: Array<{ id: string; last_attempted_at: string }>;
  beforeAll(async () => {
    deliveries = (await admin(svc.sandbox(), 'GET', `/v1/webhooks/${webhook}/deliveries`)).body.items;
  });

  it.each([80, 100, 120])('at %i columns', async (columns) => {
    // Most recent first: the 503, then the connection timeout.
    const [b, a] = deliveries as [(typeof deliveries)[0], (typeof deliveries)[0]];
    const expected: Record<number, string[]> = {
      80: [
        'ID           EVENT                   STATUS  ERROR               ATTEMPTED',
        `${short(b.id)}  exception.sla.breached  failed  5xx_server_error    2 hours ago`,
        `${short(a.id)}  exception.sla.breached  failed  connection_timeout  2 hours ago`,
      ],
      100: [
        'ID                            EVENT                   STATUS  HTTP  ERROR               ATTEMPTED',
        `${b.id}  exception.sla.breached  failed  503   5xx_server_error    2 hours ago`,
        `${a.id}  exception.sla.breached  failed  -     connection_timeout  2 hours ago`,
      ],
      120: [
        'ID                            EVENT                   STATUS  ATTEMPTS  HTTP  ERROR               ATTEMPTED    REPLAY OF',
        `${b.id}  exception.sla.breached  failed  5/5       503   5xx_server_error    2 hours ago  -`,
        `${a.id}  exception.sla.breached  failed  5/5       -     connection_timeout  2 hours ago  -`,
      ],
    };
    const { ctx, stdout, stderr } = svc.context({ tty: { stdout: true }, columns, now });
    await runDeliveries(ctx, parseDeliveries(webhook, {}) as Parameters<typeof runDeliveries>[1]);
    expect([stdout(), stderr()]).toEqual([
      lines('2 deliveries: 0 delivered, 2 failed, 0 in flight', ...expected[columns]!),
      columns === 80 ? SHORTENED : '',
    ]);
  });

  it('in a pipe: every column, tab-separated, the rows alone (the counts head a table)', async () => {
    const full = (await admin(svc.sandbox(), 'GET', `/v1/webhooks/${webhook}/deliveries`)).body
      .items as Array<Record<string, unknown>>;
    const { ctx, stdout, stderr } = svc.context({ columns: 80, now });
    await runDeliveries(ctx, parseDeliveries(webhook, {}) as Parameters<typeof runDeliveries>[1]);
    expect(stderr()).toBe('');
    expect(stdout()).toBe(
      lines(
        ...full.map((d) =>
          [
            d.id,
            'exception.sla.breached',
            'failed',
            '5/5',
            d.last_status_code ?? '',
            d.last_error_code,
            '',
            d.last_attempted_at,
            d.event_id,
            '',
          ].join('\t'),
        ),
      ),
    );
  });
});
