// Over 300 lines on purpose: the take-over stories (two and three sessions, every stop order run,
// and the platforms that cannot undo a rotation) share one sandbox and its helpers.
/**
 * `svc webhooks listen --webhook W --take-over`, two sessions in both stop orders and three in
 * three orders: W ends with its original URL and its original secret (restore-secret undoes
 * rotations as a stack), or svc says plainly what is left and prints commands that really work
 * (the test runs them as said). Also a platform that cannot undo the session's rotation any more
 * (409, or the old secret stopped signing): no ✓, no hint naming a command that cannot work.
 */
import { describe, expect, it } from 'vitest';
import { shellWord } from '../../../src/system/shell-words.js';
import { startInProcess } from '../../helpers/context.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { admin, createWebhook, webhookNow } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
/** A platform whose restore-secret undoes one rotation only: the webhooks' second in a row is refused. */
const restores = new Map<string, number>();
const oneLevel = useLossyProxy(svc.sandbox, {
  lose: () => false,
  refuse: (method, path) => {
    const restore = method === 'POST' ? /^\/v1\/webhooks\/([^/]+)\/restore-secret$/.exec(path) : null;
    if (!restore) return undefined;
    const count = (restores.get(restore[1]!) ?? 0) + 1;
    restores.set(restore[1]!, count);
    return count > 1
      ? refusal(409, 'conflict', 'there is no rotation to undo: this platform undoes the last rotation only')
      : undefined;
  },
});

const webhookOf = (id: string) => webhookNow(svc.sandbox(), id);
const secrets = async (id: string) =>
  (await call(svc.sandbox(), 'GET', `/_sandbox/webhooks/${id}/secret`)).body;
const listen = (args: string[], env: Record<string, string> = {}) =>
  startInProcess(
    ['webhooks', 'listen', '--port', '0', ...args],
    { ...svc.env(), ...env },
    { now: Date.now() },
  );

/** Runs `svc … && svc …` as printed (words, 'single-quoted' values), in-process; the exit codes. */
/** W as it was before any session: its URL, its rotation fields, and only its original secret. */
async function expectAsBefore(id: string, before: Record<string, unknown>, secret: string) {
  const after = await webhookOf(id);
  expect([after.url, after.secret_rotated_at, after.previous_secret_expires_at]).toEqual([
    before.url,
    before.secret_rotated_at,
    before.previous_secret_expires_at,
  ]);
  expect(await secrets(id)).toEqual({ id, secret, previous_secret: null });
}

async function runPrinted(commands: string): Promise<number[]> {
  const codes: number[] = [];
  for (const command of commands.split(' && ')) {
    const words = (command.match(/(?:[^\s']|'[^']*')+/g) ?? []).map((word) =>
      word.replace(/'([^']*)'/g, '$1'),
    );
    expect(words[0]).toBe('svc');
    const run = await svc.run(words.slice(1), { now: Date.now() });
    codes.push(run.code);
    if (run.code !== 0) break;
  }
  return codes;
}

/** The `svc api PATCH … && svc api POST …/restore-secret` a session printed last (at start it prints the same). */
function printedBy(stderr: string): string {
  const printed = [
    ...stderr.matchAll(/svc api PATCH \S+ -f url=(?:[^\s']|'[^']*')+ && svc api POST \S+\/restore-secret/g),
  ];
  expect(printed.length).toBeGreaterThan(0);
  return printed.at(-1)![0];
}

/**
 * Sessions A, then B and C with --take-over, on one webhook, stopped in `order`; then what they
 * said is done: while W's URL is a stopped session's, the commands that session printed. W must
 * end as it was before A, and every session's words must be true when it said them.
 */
async function threeSessions(order: string) {
  const { id, secret } = await createWebhook(svc.sandbox(), `https://hooks.example/three-${order}`);
  const before = await webhookOf(id);
  const sessions = new Map<string, { run: ReturnType<typeof listen>; url: string; found: string }>();
  for (const name of 'ABC') {
    const found = (await webhookOf(id)).url;
    const run = listen(['--webhook', id, ...(name === 'A' ? [] : ['--take-over'])]);
    await run.waitForStderr(/delivers here/);
    sessions.set(name, { run, url: (await webhookOf(id)).url, found });
  }
  const said = new Map<string, { code: number; stderr: string; urlAtStop: string }>();
  for (const name of order) {
    const session = sessions.get(name)!;
    const urlAtStop = (await webhookOf(id)).url;
    session.run.interrupt();
    const done = await session.run.done;
    said.set(name, { code: done.code, stderr: done.stderr, urlAtStop });
  }
  for (const [name, { code, stderr, urlAtStop }] of said) {
    const { url, found } = sessions.get(name)!;
    const error = stderr.includes('error:') ? stderr.slice(stderr.indexOf('error:')) : '';
    if (urlAtStop !== url) {
      // Taken over when it stopped: it says what is left, true whether its taker runs or not.
      expect(code, stderr).toBe(6);
      expect(error).toContain(
        `error: webhook ${id} was taken over by another \`svc webhooks listen\` session (its URL is now ${urlAtStop}); ` +
          'svc left it to that session: while it runs, it gives it back when it stops, to the URL and secret it took it from; ' +
          'if it has stopped, it did not, and printed the commands that do; ' +
          `once no listen session runs on ${id}: while its URL is another session's (not this one's, ${url}), run the commands ` +
          `that session printed, each of which puts ${id} back as it was before that session; then put it back as it was ` +
          `before this session with: svc api PATCH /v1/webhooks/${id} -f url=${shellWord(found)} && svc api POST /v1/webhooks/${id}/restore-secret\n`,
      );
    } else if (name === 'A') {
      expect(code, stderr).toBe(0);
      expect(stderr).toContain(`✓ webhook ${id} is back: ${found}`);
    } else {
      expect(code, stderr).toBe(0);
      expect(stderr).not.toContain('✓');
      expect(stderr).toContain(
        `warning: webhook ${id} is back as it was when this session started: ${found}`,
      );
    }
  }
  const urls = new Map([...sessions].map(([name, { url }]) => [url, name]));
  const followed: string[] = [];
  for (let url = (await webhookOf(id)).url; urls.has(url); url = (await webhookOf(id)).url) {
    const name = urls.get(url)!;
    expect(followed).not.toContain(name);
    followed.push(name);
    expect(await runPrinted(printedBy(said.get(name)!.stderr))).toEqual([0, 0]);
  }
  await expectAsBefore(id, before, secret);
  return { said: new Map([...said].map(([name, { code }]) => [name, code])), followed };
}

describe('listen --webhook W: three sessions (B and C take over), any stop order', () => {
  it.each([
    [
      'BCA',
      'A, taken over by a session that stopped, says what is left; the commands put W back',
      [6, 0, 6],
      ['B', 'A'],
    ],
    ['CBA', 'each gives W back in turn, nothing left to run', [0, 0, 0], []],
    [
      'ABC',
      'the two taken over say what is left; C gives W to B, and their commands put it back',
      [6, 6, 0],
      ['B', 'A'],
    ],
  ])(
    '%s: %s',
    async (order, _, codes, commandsRun) => {
      const { said, followed } = await threeSessions(order);
      expect([...said]).toEqual([...order].map((name, i) => [name, codes[i]]));
      expect(followed).toEqual(commandsRun);
    },
    40_000,
  );
});

describe('listen --webhook W --take-over: W gets its URL and its secret back, whichever session stops first', () => {
  it('the taking session stops first, then the first one: both put back what they changed', async () => {
    const { id, secret } = await createWebhook(svc.sandbox(), 'https://hooks.example/ba');
    const before = await webhookOf(id);
    const a = listen(['--webhook', id]);
    await a.waitForStderr(/delivers here/);
    const aUrl = (await webhookOf(id)).url;
    const b = listen(['--webhook', id, '--take-over']);
    await b.waitForStderr(/delivers here/);
    expect(b.stderr()).toContain(
      `warning: taking webhook ${id} over from another \`svc webhooks listen\` session (${aUrl}): when this ` +
        'session stops it gives the webhook back to that one (its URL, and its secret by undoing only this ' +
        "session's rotation); if that one stops first, it leaves the webhook alone and prints the commands " +
        'to run once this one has stopped\n',
    );
    expect(b.stderr()).not.toContain('find it changed');

    b.interrupt();
    const bDone = await b.done;
    expect(bDone.code, bDone.stderr).toBe(0);
    expect(bDone.stderr).not.toContain('✓');
    expect((await webhookOf(id)).url).toBe(aUrl);

    a.interrupt();
    const aDone = await a.done;
    expect(aDone.code, aDone.stderr).toBe(0);
    expect(aDone.stderr).toContain(
      `✓ webhook ${id} is back: https://hooks.example/ba, signing with the secret it had before this session`,
    );
    await expectAsBefore(id, before, secret);
  }, 30_000);

  it('the first session stops first: it leaves W to the other and prints commands that work once that one has stopped', async () => {
    const { id, secret } = await createWebhook(svc.sandbox(), 'https://hooks.example/ab');
    const a = listen(['--webhook', id]);
    await a.waitForStderr(/delivers here/);
    const aUrl = (await webhookOf(id)).url;
    const b = listen(['--webhook', id, '--take-over']);
    await b.waitForStderr(/delivers here/);
    const bUrl = (await webhookOf(id)).url;

    a.interrupt();
    const aDone = await a.done;
    expect(aDone.code, aDone.stderr).toBe(6);
    expect(aDone.stderr).not.toContain('✓');
    const commands =
      `svc api PATCH /v1/webhooks/${id} -f url=https://hooks.example/ab && ` +
      `svc api POST /v1/webhooks/${id}/restore-secret`;
    expect(aDone.stderr).toContain(
      `error: webhook ${id} was taken over by another \`svc webhooks listen\` session (its URL is now ${bUrl}); ` +
        'svc left it to that session: while it runs, it gives it back when it stops, to the URL and secret it took it from; ' +
        'if it has stopped, it did not, and printed the commands that do; ' +
        `once no listen session runs on ${id}: while its URL is another session's (not this one's, ${aUrl}), run the commands ` +
        `that session printed, each of which puts ${id} back as it was before that session; then put it back as it was ` +
        `before this session with: ${commands}\n`,
    );

    b.interrupt();
    const bDone = await b.done;
    expect(bDone.code, bDone.stderr).toBe(0);
    expect(bDone.stderr).toContain(
      `warning: webhook ${id} is back as it was when this session started: ${aUrl}, another listen session's ` +
        "listener, with that session's secret; if that session has stopped, run the commands it printed to put " +
        `${id} back as it was before it (and so on, while its URL is then another stopped session's)\n`,
    );
    expect(await runPrinted(commands)).toEqual([0, 0]);
    expect((await webhookOf(id)).url).toBe('https://hooks.example/ab');
    expect(await secrets(id)).toEqual({ id, secret, previous_secret: null });
  }, 30_000);

  it('a platform that cannot undo the rotation any more (409): URL back, the secret NOT, said plainly (exit 6)', async () => {
    const { id, secret } = await createWebhook(svc.sandbox(), 'https://hooks.example/late');
    const a = listen(['--webhook', id]);
    await a.waitForStderr(/delivers here/);
    // The secret this session's rotation replaced stops signing: nothing can undo the rotation now.
    await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 24 * 3600 + 1 } });
    a.interrupt();
    const done = await a.done;
    expect(done.code, done.stderr).toBe(6);
    expect(done.stderr).not.toContain('✓');
    const error = done.stderr.slice(done.stderr.indexOf('error:'));
    const after = await webhookOf(id);
    expect(error).toContain(
      `error: webhook ${id} has its URL back (https://hooks.example/late), but NOT the secret it had before this session: ` +
        "the platform cannot undo this session's rotation (there is no rotation to undo: the secret was not rotated, " +
        "or the previous one stopped signing after 24 hours); it signs with this session's secret only (the one it " +
        `had before stopped signing at ${after.previous_secret_expires_at}); give its receiver a new secret: ` +
        `svc webhooks rotate-secret ${id} --secret-file <new file>\n`,
    );
    expect(error).not.toContain('restore-secret');
    expect(after.url).toBe('https://hooks.example/late');
    expect((await secrets(id)).secret).not.toBe(secret);
  }, 30_000);

  it('URL changed by someone else after the old secret stopped signing: no restore-secret offered, a new secret is', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/b-late');
    const a = listen(['--webhook', id]);
    await a.waitForStderr(/delivers here/);
    await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 24 * 3600 + 1 } });
    await admin(svc.sandbox(), 'PATCH', `/v1/webhooks/${id}`, { url: 'https://elsewhere.example/y' });
    const changed = await webhookOf(id);
    a.interrupt();
    const done = await a.done;
    expect(done.code, done.stderr).toBe(6);
    const error = done.stderr.slice(done.stderr.indexOf('error:'));
    expect(error).toContain(
      `error: webhook ${id} was changed by someone else while this session ran (its URL is now https://elsewhere.example/y); ` +
        `svc left it alone, so it still signs with this session's secret only (the one it had before stopped signing at ` +
        `${changed.previous_secret_expires_at}); give its receiver a new secret: svc webhooks rotate-secret ${id} ` +
        `--secret-file <new file>; its URL before this session: svc api PATCH /v1/webhooks/${id} -f url=https://hooks.example/b-late\n`,
    );
    expect(error).not.toContain('restore-secret');
    expect(await webhookOf(id)).toEqual(changed);
  }, 30_000);

  it('a platform that undoes one rotation only: the first session says its old secret is not back, and until when it signs', async () => {
    const { id, secret } = await createWebhook(svc.sandbox(), 'https://hooks.example/one-level');
    const via = { SVC_BASE_URL: oneLevel().url };
    const a = listen(['--webhook', id], via);
    await a.waitForStderr(/delivers here/);
    const aRotation = await webhookOf(id);
    const b = listen(['--webhook', id, '--take-over'], via);
    await b.waitForStderr(/delivers here/);
    b.interrupt();
    expect((await b.done).code).toBe(0);
    a.interrupt();
    const done = await a.done;
    expect(done.code, done.stderr).toBe(6);
    expect(done.stderr).not.toContain('✓');
    const error = done.stderr.slice(done.stderr.indexOf('error:'));
    expect(error).toContain(
      `error: webhook ${id} has its URL back (https://hooks.example/one-level), but NOT the secret it had before this session: ` +
        "the platform cannot undo this session's rotation (there is no rotation to undo: this platform undoes the last " +
        "rotation only); it signs with this session's secret, and with the one it had before only until " +
        `${aRotation.previous_secret_expires_at}; give its receiver a new secret before then: ` +
        `svc webhooks rotate-secret ${id} --secret-file <new file>\n`,
    );
    expect(error).not.toContain('restore-secret');
    expect((await webhookOf(id)).url).toBe('https://hooks.example/one-level');
    expect((await secrets(id)).previous_secret).toBe(secret);
  }, 30_000);
});
