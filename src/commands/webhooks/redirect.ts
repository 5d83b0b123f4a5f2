// Over 300 lines on purpose: a session's set-up and its restore share what W was and what the
// session made of it, and every way W can be found on exit is said here, in one place.
import { randomBytes } from 'node:crypto';
import { thirdPartyClientOf, usersOnlyRefusal } from '../../api/caller-authority.js';
import { eventReadPermissions } from '../../api/permissions.js';
import type { Webhook, WebhookWithSecret } from '../../api/schemas/webhooks.js';
import { serverTime } from '../../api/time.js';
import { type Settings, svcCommand } from '../../config/settings.js';
import { sameUrl } from '../../config/store.js';
import type { Context } from '../../context.js';
import { describeError, InterruptedError, optionalLookup, SvcError } from '../../errors.js';
import { urlInWords } from '../../output/hosts.js';
import { platformTime } from '../../platform/clock.js';
import type { Platform } from '../../platform/index.js';
import { unabandoned } from '../../system/interrupts.js';
import { shellWord } from '../../system/shell-words.js';
import { restoreCommands, restoreSecretCommand, restoreUnknownHint } from './by-hand.js';
import { type KeptUrl, keepUrl } from './kept-url.js';

/**
 * `svc webhooks listen --webhook W`: the webhook delivers to the listener while it runs, as
 * `stripe listen` does, and is put back afterwards. The secret is rotated so the listener can
 * verify (the platform never shows a secret twice); during the session every delivery is signed
 * with the new secret and the old one, so a receiver that kept the old secret still verifies
 * captures. On the way out the URL is set back and the rotation undone (the platform's
 * restore-secret: the old secret is the only one again), so the real receiver needs nothing new.
 *
 * One session at a time: the URL a session gives W carries the query parameter `svc-listen=<id>`
 * (the listener takes any path and query), so another session sees that W is taken and refuses
 * (exit 6) rather than keep that listener as "the URL to put back". And W is put back only if it
 * is still as this session left it — the URL is this session's and `secret_rotated_at` is the
 * one this session's rotation set (restore-secret undoes the *last* rotation, whoever made it) —
 * otherwise it is left alone and svc says so (exit 6), with the commands for the original values.
 * A session taken over (--take-over) by another is left to it: that one gives W back to this
 * session's URL and rotation (undoing only its own: restore-secret undoes rotations as a stack)
 * if it still runs when it stops; a taker that stopped first (taken over in turn, or killed) gave
 * nothing back and printed its commands. So with any number of sessions and any stop order this
 * one says what is left: once none runs, while W's URL is another session's, that session's
 * commands (each undoes one session, the last first), then this one's. A URL changed by someone
 * else: W still signs with the session's secret, and the rotation can be undone alone (the new
 * URL kept). W deleted meanwhile: nothing to put back.
 *
 * Set-up never leaves W changed silently: the commands that put it back are printed before the
 * first change, the changes finish even when Ctrl-C comes (sent, they may be applied), and a
 * Ctrl-C during set-up undoes what took effect; a second Ctrl-C waits for that (src/system/interrupts.ts).
 */
export interface Redirection {
  webhook: string;
  originalUrl: string;
  /** The original URL was another listen session's listener (taken over with --take-over). */
  originalIsListenSession: boolean;
  /** The signing secret of the session. */
  secret: string;
  /**
   * Puts W back if it is as this session left it; throws (saying what to run) otherwise. Resolves
   * to what was not put back with it: its owner (ownerNotBack), or undefined.
   */
  restore(): Promise<string | undefined>;
}

/**
 * The platform makes whoever changes a webhook's URL its owner (it then delivers only while they
 * hold its kinds' read permissions), and gives it back to the owner before when the same caller
 * puts the URL back, if that owner would keep it. What to say when it did not, or undefined.
 */
export function ownerNotBack(webhook: string, original: Webhook, now: Webhook): string | undefined {
  if (original.owner_id === undefined || now.owner_id === undefined || now.owner_id === original.owner_id) {
    return undefined;
  }
  const reads = eventReadPermissions(now.event_types);
  return (
    `webhook ${webhook} is now owned by ${now.owner_id ?? 'nobody'}, not ${original.owner_id ?? 'nobody'} as before this session ` +
    `(the platform gives it back only to an owner who would keep it): it delivers only while ${now.owner_id ?? 'its owner'} holds ` +
    `${reads.join(', ') || 'its read permissions'}`
  );
}

/**
 * The URL a server answered with is the one sent: the same text, or the same place as a browser
 * reads it (a server that keeps an IDN host in punycode, a host in lower case).
 */
function sameWebhookUrl(answered: string, sent: string): boolean {
  return answered === sent || sameUrl(answered, sent);
}

/** The query parameter that marks a URL as a `listen --webhook` session's. */
export const SESSION_PARAM = 'svc-listen';

/** The listen session a webhook URL belongs to, if it is one. */
export function listenSessionOf(url: string): string | undefined {
  try {
    return new URL(url).searchParams.get(SESSION_PARAM) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The URL W gets for a session: where the listener is reached, marked as this session's. */
export function sessionUrl(base: string): string {
  const url = new URL(base);
  url.searchParams.set(SESSION_PARAM, randomBytes(6).toString('hex'));
  return url.href;
}

/**
 * A session rotates W's signing secret, which only a user with their own login may do (403
 * user_required to an API key or a third-party OAuth client's token: src/api/caller-authority.ts
 * usersOnlyRefusal): refused before anything starts (no listener, no capture directory, nothing
 * printed to put back) when GET /v1/me says the caller is one; a server that does not say is left
 * to answer the rotation itself.
 */
export async function refuseRotationByCaller(ctx: Context, webhook: string): Promise<void> {
  const platform = await ctx.platform();
  const me = await optionalLookup(platform.me.get({ signal: ctx.signal, tenant: null }));
  if (me === undefined) return;
  const refusal = usersOnlyRefusal('webhooks_rotate_secret', me.type === 'user', thirdPartyClientOf(me));
  if (refusal === undefined) return;
  throw new SvcError(
    'forbidden',
    `--webhook ${webhook} rotates its signing secret for the session, and ${refusal.message}; nothing was changed`,
    {
      code: refusal.code,
      hint: `log in as a user (${svcCommand(ctx.settings(), 'login')}) to listen with --webhook, or listen without it, verifying with the webhook's secret (--secret-file)`,
    },
  );
}

export async function redirectWebhook(
  ctx: Context,
  webhook: string,
  url: string,
  options: { takeOver: boolean },
): Promise<Redirection> {
  const platform = await ctx.platform();
  // A read: a Ctrl-C that cancels it changes nothing.
  const original = await platform.webhooks.get(webhook);
  const taken = listenSessionOf(original.url) !== undefined;
  if (taken && !options.takeOver) {
    throw new SvcError(
      'conflict',
      `webhook ${webhook} is already taken over by another \`svc webhooks listen\` session (its URL is ${urlInWords(original.url)}); ` +
        'stop that session (Ctrl-C where it runs), which puts it back',
      {
        code: 'listen_session_active',
        hint:
          `if that session was killed, put ${webhook} back by hand with the commands it printed at start; ` +
          `--take-over takes ${webhook} anyway (on exit it goes back to that session's URL)`,
      },
    );
  }
  if (taken) {
    ctx.out.warn(
      `taking webhook ${webhook} over from another \`svc webhooks listen\` session (${urlInWords(original.url)}): when this ` +
        'session stops it gives the webhook back to that one (its URL, and its secret by undoing only this ' +
        "session's rotation); if that one stops first, it leaves the webhook alone and prints the commands " +
        'to run once this one has stopped',
    );
  }
  if (original.status !== 'enabled') {
    ctx.out.warn(`webhook ${webhook} is ${original.status}: nothing is delivered until it is enabled`);
  }
  // Said before the first change, so a kill at any point after leaves the way back on screen. A
  // URL holding a secret is kept in a file of the user's for that (kept-url.ts), never printed.
  const kept = keepUrl(ctx, webhook, original.url);
  ctx.out.info(
    `webhook ${webhook}'s URL is ${urlInWords(original.url)}; for this session svc rotates its secret (deliveries carry the old ` +
      'one too) and points it at the listener; Ctrl-C puts both back; if svc is killed instead, put them back with:',
  );
  ctx.out.info(`  ${restoreCommands(ctx.settings(), webhook, original.url, true, kept?.path)}`);
  if (kept !== undefined) {
    ctx.out.info(
      `  (the URL, which holds a secret, is read from ${kept.path}, which only you can read, and not shown; svc removes that file once the webhook is back)`,
    );
  }
  // A change, once sent, may be applied even if svc stops waiting: requests from here on finish
  // whatever Ctrl-C does, and a Ctrl-C during set-up undoes what took effect (a second one waits);
  // a token refresh they need is sent after Ctrl-C too (a session outlives its token: attack24b F1).
  const own = () => ({ signal: AbortSignal.timeout(30_000), afterStop: true });
  return unabandoned(`undoing the changes made to webhook ${webhook} so far`, async () => {
    const rotated = await platform.webhooks.rotateSecret(webhook, own()).catch((error: unknown) => {
      const refused = rotationRefused(webhook, error);
      // Refused: nothing was changed, so nothing is to be put back (the command above is not needed).
      if (refused !== error) kept?.remove();
      throw refused;
    });
    ctx.secrets.add(rotated.secret);
    const redirection = sessionRedirection(
      platform,
      ctx.settings(),
      webhook,
      original,
      url,
      rotated,
      taken,
      own,
      () => ctx.clock.now(),
      kept,
    );
    let patchError: unknown;
    let pointed = false;
    /** The PATCH was answered with W at another URL than the listener's. */
    let elsewhere = false;
    if (!ctx.signal.aborted) {
      try {
        const answer = await platform.webhooks.update(webhook, { url }, own());
        // Only an answer naming the listener's URL says W delivers here (attack26b F1): another is
        // taken as a failed change, W read to tell what is to be undone.
        if (!sameWebhookUrl(answer.url, url)) {
          elsewhere = true;
          throw new SvcError(
            'failure',
            `the server answered the change of webhook ${webhook}'s URL to the listener's (${urlInWords(url)}) with its URL ${urlInWords(answer.url)}, which does not say it delivers to the listener`,
          );
        }
        pointed = true;
      } catch (error) {
        patchError = error;
        // A PATCH that failed may still have been applied (its answer lost): W says whether it was.
        const now = await platform.webhooks.get(webhook, own()).catch(() => undefined);
        if (now === undefined) {
          throw new SvcError(
            'failure',
            `${describeError(error)}; webhook ${webhook}'s secret is rotated, and whether its URL was changed is not known`,
            {
              hint: `put it back with: ${restoreCommands(ctx.settings(), webhook, original.url, true, kept?.path)}`,
            },
          );
        }
        pointed = now.url === url;
      }
    }
    if (pointed) {
      if (patchError === undefined && !ctx.signal.aborted) return redirection;
      const owner = await redirection.restore();
      if (owner !== undefined) ctx.out.warn(owner);
      if (patchError !== undefined) throw patchError;
      throw new InterruptedError(
        `interrupted while setting up: webhook ${webhook} had been pointed at the listener; svc put it back: ` +
          `${urlInWords(original.url)}, signing with the secret it had before`,
      );
    }
    // The URL was not changed: only the rotation is to be undone (no command reads the kept URL).
    kept?.remove();
    const why = patchError === undefined ? 'interrupted while setting up' : describeError(patchError);
    try {
      await platform.webhooks.restoreSecret(webhook, own());
    } catch (error) {
      if (error instanceof SvcError && error.outcome === 'unknown') {
        throw new SvcError(
          'failure',
          `${why}; webhook ${webhook}'s URL was not changed, and whether its secret's rotation was undone is not known (${describeError(error)})`,
          {
            code: error.code,
            outcome: 'unknown',
            hint: restoreUnknownHint(ctx.settings(), webhook, {
              before: original.secret_rotated_at,
              session: rotated.secret_rotated_at,
            }),
          },
        );
      }
      throw new SvcError(
        'failure',
        `${why}; webhook ${webhook}'s URL was not changed, but its secret is still rotated (undoing that failed: ${describeError(error)})`,
        { hint: `undo the rotation with: ${restoreSecretCommand(ctx.settings(), webhook)}` },
      );
    }
    if (elsewhere && patchError instanceof SvcError)
      throw new SvcError(
        'failure',
        `${patchError.message}; svc undid the rotation of its secret, so it is as it was`,
      );
    if (patchError !== undefined) throw patchError;
    throw new InterruptedError(
      `interrupted while setting up: webhook ${webhook}'s secret had been rotated; svc undid that, so it is as it was`,
    );
  });
}

function sessionRedirection(
  platform: Platform,
  target: Settings,
  webhook: string,
  original: Webhook,
  url: string,
  rotated: WebhookWithSecret,
  taken: boolean,
  own: () => { signal: AbortSignal; afterStop: boolean },
  clockNow: () => number,
  kept: KeptUrl | undefined,
): Redirection {
  /** W signing with this session's secret: whether the one it had before still signs too, in words. */
  const signing = (now: Webhook) => {
    const until = now.previous_secret_expires_at;
    const signs = until !== null && serverTime(until) > platformTime(platform, clockNow());
    const words = signs
      ? `, and with the one it had before only until ${until}`
      : ` only (the one it had before stopped signing${until ? ` at ${until}` : ''})`;
    return { signs, words };
  };
  const notBack = (why: string, hint: string) =>
    new SvcError('failure', `webhook ${webhook} was NOT put back (${why})`, { hint });
  /** The server answered a put-back with W at `now`, not its URL before: the commands left (`secret`: its rotation too). */
  const urlNotBack = (now: string, secret: boolean) =>
    notBack(
      `the server answered ${secret ? 'the change of its URL' : 'the undoing of its rotation'} with its URL ${urlInWords(now)}, not ${urlInWords(original.url)}${secret ? '' : "; its secret's rotation was undone"}`,
      `put ${secret ? 'it' : 'its URL'} back with: ${restoreCommands(target, webhook, original.url, secret, kept?.path)}`,
    );
  return {
    webhook,
    originalUrl: original.url,
    originalIsListenSession: taken,
    secret: rotated.secret,
    async restore() {
      let now: Webhook;
      try {
        now = await platform.webhooks.get(webhook, own());
      } catch (error) {
        if (error instanceof SvcError && error.category === 'not_found') {
          kept?.remove();
          throw new SvcError(
            'conflict',
            `webhook ${webhook} was deleted while this session ran (${describeError(error)}); there is nothing to put back`,
            { code: 'webhook_deleted' },
          );
        }
        throw notBack(
          `could not read it: ${describeError(error)}`,
          `put it back with: ${restoreCommands(target, webhook, original.url, true, kept?.path)}`,
        );
      }
      const urlOurs = now.url === url;
      // The API shows no secret: a rotation or restore by anyone else changes these (to the second).
      const secretOurs =
        now.secret_rotated_at === rotated.secret_rotated_at &&
        now.previous_secret_expires_at === rotated.previous_secret_expires_at;
      if (!urlOurs && listenSessionOf(now.url) !== undefined) {
        // Taken over with --take-over. Whether that session still runs is not known here: if it
        // does, it gives W back to what it found when it stops; if it stopped (taken over in turn,
        // or killed), it printed the commands that do. Those undo one session each, the last
        // first (restore-secret undoes rotations as a stack), down to this session's URL.
        throw new SvcError(
          'conflict',
          `webhook ${webhook} was taken over by another \`svc webhooks listen\` session (its URL is now ${urlInWords(now.url)}); ` +
            'svc left it to that session: while it runs, it gives it back when it stops, to the URL and secret it took ' +
            'it from; if it has stopped, it did not, and printed the commands that do',
          {
            code: 'webhook_changed',
            hint:
              `once no listen session runs on ${webhook}: while its URL is another session's (not this one's, ${urlInWords(url)}), ` +
              `run the commands that session printed, each of which puts ${webhook} back as it was before that session; ` +
              `then put it back as it was before this session with: ${restoreCommands(target, webhook, original.url, true, kept?.path)}`,
          },
        );
      }
      if (!urlOurs && secretOurs) {
        // Only the URL was changed, by someone who most likely wants it kept: W still signs with
        // this session's secret, and the rotation can be undone alone.
        const { signs, words } = signing(now);
        throw new SvcError(
          'conflict',
          `webhook ${webhook} was changed by someone else while this session ran (its URL is now ${urlInWords(now.url)}); ` +
            `svc left it alone, so it still signs with this session's secret${words}`,
          {
            code: 'webhook_changed',
            hint: signs
              ? `to keep the new URL, undo only this session's rotation: ${restoreSecretCommand(target, webhook)}; ` +
                `to put it back as it was before this session: ${restoreCommands(target, webhook, original.url, true, kept?.path)}`
              : `give its receiver a new secret: ${svcCommand(target, `webhooks rotate-secret ${shellWord(webhook)} --secret-file <new file>`)}; ` +
                `its URL before this session: ${restoreCommands(target, webhook, original.url, false, kept?.path)}`,
          },
        );
      }
      if (!secretOurs) {
        const changes = [
          ...(urlOurs ? [] : [`its URL is now ${urlInWords(now.url)}`]),
          `its secret was rotated or restored since this session rotated it (secret_rotated_at ${now.secret_rotated_at ?? 'null'})`,
        ];
        throw new SvcError(
          'conflict',
          `webhook ${webhook} was changed by someone else while this session ran (${changes.join('; ')}); svc left it alone`,
          {
            code: 'webhook_changed',
            hint:
              `to set its URL back: ${restoreCommands(target, webhook, original.url, false, kept?.path)} ` +
              `(restore-secret would undo the newer rotation, not this session's: see \`${svcCommand(target, `webhooks get ${shellWord(webhook)}`)}\` first)`,
          },
        );
      }
      let put: Webhook;
      try {
        put = await platform.webhooks.update(webhook, { url: original.url }, own());
      } catch (error) {
        throw notBack(
          `its URL: ${describeError(error)}`,
          `put it back with: ${restoreCommands(target, webhook, original.url, true, kept?.path)}`,
        );
      }
      // Only an answer naming the URL asked for says W is back (attack26b F1): not this one's.
      if (!sameWebhookUrl(put.url, original.url)) throw urlNotBack(put.url, true);
      let restored: Webhook;
      try {
        restored = await platform.webhooks.restoreSecret(webhook, own());
      } catch (error) {
        // W has its URL back: no command left to print reads the kept one.
        kept?.remove();
        const urlBack = `webhook ${webhook} has its URL back (${urlInWords(original.url)}), but NOT`;
        if (error instanceof SvcError && error.category === 'conflict') {
          // Nothing left to undo (the old secret stopped signing, or a platform that undoes one
          // rotation only, already used by a session that took W over): no command brings it back.
          const { signs, words } = signing(now);
          throw new SvcError(
            'conflict',
            `${urlBack} the secret it had before this session: the platform cannot undo this session's rotation ` +
              `(${describeError(error)}); it signs with this session's secret${words}`,
            {
              code: 'secret_not_restored',
              hint: `give its receiver a new secret${signs ? ' before then' : ''}: ${svcCommand(target, `webhooks rotate-secret ${shellWord(webhook)} --secret-file <new file>`)}`,
            },
          );
        }
        if (error instanceof SvcError && error.outcome === 'unknown') {
          throw new SvcError(
            'failure',
            `webhook ${webhook} has its URL back (${urlInWords(original.url)}), but whether its secret is the one it had before ` +
              `this session is not known (${describeError(error)})`,
            {
              code: error.code,
              outcome: 'unknown',
              hint: restoreUnknownHint(target, webhook, {
                before: original.secret_rotated_at,
                session: rotated.secret_rotated_at,
              }),
            },
          );
        }
        throw new SvcError('failure', `${urlBack} its secret (${describeError(error)})`, {
          hint: `undo the session's rotation with: ${restoreSecretCommand(target, webhook)}`,
        });
      }
      // The record restored says where W delivers: elsewhere, its URL is not back (the secret is).
      if (!sameWebhookUrl(restored.url, original.url)) throw urlNotBack(restored.url, false);
      // W has its URL back: no command left to print reads the kept one.
      kept?.remove();
      if (restored.secret_rotated_at !== original.secret_rotated_at) {
        throw new SvcError(
          'failure',
          `webhook ${webhook} has its URL back (${urlInWords(original.url)}), but its secret is not the one it had ` +
            `before this session (secret_rotated_at ${restored.secret_rotated_at ?? 'null'}, was ${original.secret_rotated_at ?? 'null'})`,
          { hint: `see \`${svcCommand(target, `webhooks get ${shellWord(webhook)}`)}\`` },
        );
      }
      return ownerNotBack(webhook, original, restored);
    },
  };
}

/**
 * The platform refused the session's rotation (409: e.g. as many secrets rotated out as it keeps
 * signing): nothing was changed, so the restore commands on screen are not needed, and the
 * platform's own remedy (restore-secret) would undo the last real rotation, not this session's.
 */
function rotationRefused(webhook: string, error: unknown): unknown {
  if (!(error instanceof SvcError) || error.category !== 'conflict') return error;
  return new SvcError(
    'conflict',
    `the platform refused to rotate webhook ${webhook}'s secret: ${error.message.replace(/,? or undo the last rotation with restore-secret/, '')}`,
    {
      code: error.code,
      cause: error,
      hint:
        'nothing was changed, so the commands above are not needed (and restore-secret would undo the last real rotation, ' +
        "not this session's); listen without --webhook instead, or once fewer old secrets still sign",
    },
  );
}
