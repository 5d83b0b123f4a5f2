import { describe, expect, it } from 'vitest';
import { ndjson } from '../../../helpers/context.js';
import { call, sandboxNow, useSandboxContext } from '../../../helpers/sandbox.js';
import { gate, startTarget } from '../../../helpers/targets.js';
import { admin, createWebhook } from '../../../helpers/webhooks.js';

// `dlq ls`, `dlq discard --all` and `replay --dlq` with --since/--until DURATION count back from
// the platform's clock, the one dead-letter entries are timed on, as `audit ls` does (findings s11
// C2): with this machine's clock off, an on-call engineer's `--since 2h` took a different set
// and said nothing. A resumed run keeps its first run's instants. A file of its own: it moves
// the sandbox's clock.
const svc = useSandboxContext();
const HOUR = 3_600_000;
const MINUTE = 60_000;

async function deadLetter(webhook: string, count: number): Promise<string[]> {
  const before = new Set(await queued(webhook));
  await call(svc.sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
    body: { webhook_id: webhook, count },
  });
  return (await queued(webhook)).filter((id) => !before.has(id));
}
async function queued(webhook: string): Promise<string[]> {
  const r = await admin(svc.sandbox(), 'GET', `/v1/webhooks/${webhook}/dlq?status=queued&limit=200`);
  return (r.body.items as Array<{ id: string }>).map((e) => e.id);
}
const moveClock = (ms: number) =>
  call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: ms / 1000 } });

/** The three verbs that choose entries by time, and the entry ids each answered with --json. */
const verbs = {
  ls: {
    argv: (webhook: string) => ['webhooks', 'dlq', 'ls', webhook, '--json'],
    ids: (stdout: string) => (JSON.parse(stdout) as Array<{ id: string }>).map((e) => e.id),
  },
  'discard --all': {
    argv: (webhook: string) => ['webhooks', 'dlq', 'discard', webhook, '--all', '--yes', '--json'],
    ids: (stdout: string) =>
      (JSON.parse(stdout) as Array<{ dlq_entry_id: string }>).map((e) => e.dlq_entry_id),
  },
  'replay --dlq': {
    argv: (webhook: string) => ['webhooks', 'replay', webhook, '--dlq', '--no-wait', '--json'],
    ids: (stdout: string) =>
      (JSON.parse(stdout) as Array<{ dlq_entry_id: string }>).map((e) => e.dlq_entry_id),
  },
} as const;

const warning = (how: string, what: string) =>
  `warning: the platform's clock is ${how} this machine's; ${what} counted from the platform's time`;
/** The line a bulk run gives its resolved durations: `--since 2h is <instant>…, counted from the run's start (<anchor>)`. */
const INSTANTS =
  /^(--since \S+ is (\S+))?( and )?(--until \S+ is (\S+))?, counted from the run's start \((\S+)\)$/;

function instants(stderr: string) {
  const line = stderr.split('\n').find((l) => INSTANTS.test(l));
  expect(line, stderr).toBeDefined();
  const [, , since, , , until, anchor] = INSTANTS.exec(line!)!;
  return { line: line!, since, until, anchor: Date.parse(anchor!) };
}

describe.each(Object.keys(verbs) as Array<keyof typeof verbs>)(
  'svc webhooks %s --since/--until DURATION',
  (name) => {
    const verb = verbs[name];
    const bulk = name !== 'ls';

    it("counts from the platform's clock when it is ahead of this machine's, and says so once", async () => {
      const webhook = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none')).id;
      const old = await deadLetter(webhook, 2);
      await moveClock(HOUR);
      const fresh = await deadLetter(webhook, 2);
      // This machine 1 h behind the platform: the entries an hour old are not in the last 30 minutes.
      const machine = (await sandboxNow(svc.sandbox())) - HOUR;
      const recent = await svc.run([...verb.argv(webhook), '--since', '30m'], { now: machine });
      expect(recent.code, recent.stderr).toBe(0);
      expect(verb.ids(recent.stdout)).toEqual(fresh);
      const lines = recent.stderr.split('\n');
      expect(lines[0]).toBe(warning('1 h ahead of', '--since was'));
      expect(lines.filter((l) => l.startsWith('warning:'))).toHaveLength(1);
      if (bulk) {
        const { since, anchor } = instants(recent.stderr);
        expect(Math.abs(anchor - (machine + HOUR))).toBeLessThan(5000);
        expect(Date.parse(since!)).toBe(anchor - 30 * MINUTE);
      } else {
        expect(recent.stderr).toBe(`${warning('1 h ahead of', '--since was')}\n`);
      }

      // A window back from the platform's time: the entries an hour old, not those of now.
      const window = await svc.run([...verb.argv(webhook), '--since', '2h', '--until', '30m'], {
        now: machine,
      });
      expect(window.code, window.stderr).toBe(0);
      expect(verb.ids(window.stdout)).toEqual(old);
      expect(window.stderr.split('\n')[0]).toBe(warning('1 h ahead of', '--since and --until were'));
    });

    it("counts from the platform's clock when it is behind this machine's", async () => {
      const webhook = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none')).id;
      const fresh = await deadLetter(webhook, 3);
      // This machine 2 h ahead of the platform: entries dead-lettered just now are in the last 30 minutes.
      const machine = (await sandboxNow(svc.sandbox())) + 2 * HOUR;
      const r = await svc.run([...verb.argv(webhook), '--since', '30m'], { now: machine });
      expect(r.code, r.stderr).toBe(0);
      expect(verb.ids(r.stdout)).toEqual(fresh);
      expect(r.stderr.split('\n')[0]).toBe(warning('2 h behind', '--since was'));
      const none = await svc.run([...verb.argv(webhook), '--until', '30m'], { now: machine });
      expect(none.code, none.stderr).toBe(0);
      expect(verb.ids(none.stdout)).toEqual([]);
      expect(none.stderr.split('\n')[0]).toBe(warning('2 h behind', '--until was'));
    });

    it('says nothing of the clock for times given as instants', async () => {
      const webhook = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none')).id;
      const entries = await deadLetter(webhook, 1);
      const r = await svc.run([...verb.argv(webhook), '--since', '2000-01-01'], {
        now: (await sandboxNow(svc.sandbox())) + 5 * HOUR,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(verb.ids(r.stdout)).toEqual(entries);
      expect(r.stderr).not.toContain('warning');
      expect(r.stderr).not.toContain('counted from');
    });
  },
);

describe('svc webhooks dlq ls: the hint to continue', () => {
  it('repeats the instants --since and --until resolved to, on the platform clock', async () => {
    const webhook = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none')).id;
    const entries = await deadLetter(webhook, 3);
    const platform = await sandboxNow(svc.sandbox());
    const r = await svc.run(['webhooks', 'dlq', webhook, '--since', '30m', '--limit', '1'], {
      now: platform + 2 * HOUR,
    });
    expect(r.code, r.stderr).toBe(0);
    const [said, hint] = r.stderr.trimEnd().split('\n');
    expect(said).toBe(warning('2 h behind', '--since was'));
    const since = / --since (\S+) /.exec(hint!)?.[1];
    expect(Math.abs(Date.parse(since!) - (platform - 30 * MINUTE))).toBeLessThan(5000);
    const cursor = / --cursor (\S+) {2}\(or --all\)$/.exec(hint!)?.[1];
    expect(hint).toBe(
      `1 of 3 shown; more with: svc webhooks dlq ${webhook} --since ${since} --cursor ${cursor}  (or --all)`,
    );
    // The command it gives takes the rest, whatever this machine's clock says.
    const rest = await svc.run(
      ['webhooks', 'dlq', webhook, '--since', since!, '--cursor', cursor!, '--all', '--json'],
      {
        now: platform - 5 * HOUR,
      },
    );
    expect(rest.code, rest.stderr).toBe(0);
    expect(verbs.ls.ids(rest.stdout)).toEqual(entries.slice(1));
  });
});

describe('replay --dlq --since DURATION: one set of instants per run', () => {
  it('the dry run shows the instants it would use', async () => {
    const webhook = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none')).id;
    const entries = await deadLetter(webhook, 2);
    await moveClock(HOUR);
    const platform = await sandboxNow(svc.sandbox());
    const r = await svc.run(
      ['webhooks', 'replay', webhook, '--dlq', '--since', '2h', '--until', '30m', '--dry-run', '--json'],
      { now: platform },
    );
    expect(r.code, r.stderr).toBe(0);
    const { since, until, anchor, line } = instants(r.stderr);
    expect(Math.abs(anchor - platform)).toBeLessThan(5000);
    expect(line).toBe(
      `--since 2h is ${new Date(anchor - 2 * HOUR).toISOString().replace('.000', '')} and --until 30m is ${new Date(anchor - 30 * MINUTE).toISOString().replace('.000', '')}, counted from the run's start (${new Date(anchor).toISOString().replace('.000', '')})`,
    );
    expect([since, until]).toHaveLength(2);
    expect(verbs['replay --dlq'].ids(r.stdout)).toEqual(entries);
    expect(await queued(webhook)).toEqual(entries);
  });

  it('a resumed run takes the entries its first run meant, not those of the time it resumes', async () => {
    // The target holds its answers until the first run is cut: the cut falls in the first follow.
    const held = gate();
    const target = await startTarget(() => ({ status: 204, until: held.until }));
    const webhook = (await createWebhook(svc.sandbox(), target.url)).id;
    // 1.5 h old when the run starts: in its --since 2h.
    const old = await deadLetter(webhook, 3);
    await moveClock(1.5 * HOUR);
    const fresh = await deadLetter(webhook, 1);
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--since', '2h', '--wait', '--concurrency', '1'];
    const controller = new AbortController();
    const started = await sandboxNow(svc.sandbox());
    const running = svc.run([...argv, '--ndjson'], { now: started, signal: controller.signal });
    while (target.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    const first = await running;
    held.open();
    expect(first.code, first.stderr).toBe(130);
    const done = ndjson(first.stdout).map((row) => row.dlq_entry_id);
    expect(done).toEqual([old[0]]);
    const meant = instants(first.stderr);

    // An hour later the old entries are 2.5 h old: a --since 2h counted anew would leave them out.
    await moveClock(HOUR);
    const later = await sandboxNow(svc.sandbox());
    const dry = await svc.run([...argv, '--dry-run', '--json'], { now: later });
    expect(dry.code, dry.stderr).toBe(0);
    expect(instants(dry.stderr).line).toBe(meant.line);
    const again = await svc.run([...argv, '--json'], { now: later });
    expect(again.code, again.stderr).toBe(0);
    expect(instants(again.stderr).line).toBe(meant.line);
    const rows = JSON.parse(again.stdout) as Array<{ dlq_entry_id: string; status: string }>;
    expect(rows.map((row) => [row.dlq_entry_id, row.status])).toEqual([
      [old[0], 'skipped'],
      [old[1], 'ok'],
      [old[2], 'ok'],
      [fresh[0], 'ok'],
    ]);
    expect(await queued(webhook)).toEqual([]);
    await target.close();
  });
});
