import { randomBytes } from 'node:crypto';
import type { Webhook } from '../../api/schemas/webhooks.js';
import type { Context } from '../../context.js';
import { describeError, SvcError } from '../../errors.js';

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
 */
export interface Redirection {
  webhook: string;
  originalUrl: string;
  /** The original URL was another listen session's listener (taken over with --take-over). */
  originalIsListenSession: boolean;
  /** The signing secret of the session. */
  secret: string;
  /** Puts W back if it is as this session left it; throws (saying what to run) otherwise. */
  restore(): Promise<void>;
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

/** The commands that put the webhook back by hand, for when svc cannot (killed, network down). */
export function restoreCommands(webhook: string, url: string, secret = true): string {
  const patch = `svc api PATCH /v1/webhooks/${webhook} -f url=${JSON.stringify(url)}`;
  return secret ? `${patch} && svc api POST /v1/webhooks/${webhook}/restore-secret` : patch;
}

export async function redirectWebhook(
  ctx: Context,
  webhook: string,
  url: string,
  options: { takeOver: boolean },
): Promise<Redirection> {
  const platform = await ctx.platform();
  const original = await platform.webhooks.get(webhook);
  const taken = listenSessionOf(original.url) !== undefined;
  if (taken && !options.takeOver) {
    throw new SvcError(
      'conflict',
      `webhook ${webhook} is already taken over by another \`svc webhooks listen\` session (its URL is ${original.url}); ` +
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
      `taking webhook ${webhook} over from another \`svc webhooks listen\` session (${original.url}); ` +
        'that session will find it changed and leave it alone',
    );
  }
  if (original.status !== 'enabled') {
    ctx.out.warn(`webhook ${webhook} is ${original.status}: nothing is delivered until it is enabled`);
  }
  const rotated = await platform.webhooks.rotateSecret(webhook);
  ctx.secrets.add(rotated.secret);
  // Requests made on the way out must not be cancelled by the Ctrl-C that ended the session.
  const own = () => ({ signal: AbortSignal.timeout(30_000) });
  const undoRotation = () => platform.webhooks.restoreSecret(webhook, own());
  try {
    await platform.webhooks.update(webhook, { url });
  } catch (error) {
    await undoRotation().catch(() => undefined);
    throw error;
  }
  const notBack = (why: string, hint: string) =>
    new SvcError('failure', `webhook ${webhook} was NOT put back (${why})`, { hint });
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
        throw notBack(
          `could not read it: ${describeError(error)}`,
          `put it back with: ${restoreCommands(webhook, original.url)}`,
        );
      }
      const urlOurs = now.url === url;
      // The API shows no secret: a rotation or restore by anyone else changes these (to the second).
      const secretOurs =
        now.secret_rotated_at === rotated.secret_rotated_at &&
        now.previous_secret_expires_at === rotated.previous_secret_expires_at;
      if (!urlOurs || !secretOurs) {
        const changes = [
          ...(urlOurs ? [] : [`its URL is now ${now.url}`]),
          ...(secretOurs
            ? []
            : [
                `its secret was rotated or restored since this session rotated it (secret_rotated_at ${now.secret_rotated_at ?? 'null'})`,
              ]),
        ];
        throw new SvcError(
          'conflict',
          `webhook ${webhook} was changed by someone else while this session ran (${changes.join('; ')}); svc left it alone`,
          {
            code: 'webhook_changed',
            hint: secretOurs
              ? `to put it back as it was before this session: ${restoreCommands(webhook, original.url)}`
              : `to set its URL back: ${restoreCommands(webhook, original.url, false)} ` +
                `(restore-secret would undo the newer rotation, not this session's: see \`svc webhooks get ${webhook}\` first)`,
          },
        );
      }
      try {
        await platform.webhooks.update(webhook, { url: original.url }, own());
      } catch (error) {
        throw notBack(
          `its URL: ${describeError(error)}`,
          `put it back with: ${restoreCommands(webhook, original.url)}`,
        );
      }
      let restored: Webhook;
      try {
        restored = await undoRotation();
      } catch (error) {
        throw new SvcError(
          'failure',
          `webhook ${webhook} has its URL back (${original.url}), but NOT its secret (${describeError(error)})`,
          { hint: `undo the session's rotation with: svc api POST /v1/webhooks/${webhook}/restore-secret` },
        );
      }
      if (restored.secret_rotated_at !== original.secret_rotated_at) {
        throw new SvcError(
          'failure',
          `webhook ${webhook} has its URL back (${original.url}), but its secret is not the one it had ` +
            `before this session (secret_rotated_at ${restored.secret_rotated_at ?? 'null'}, was ${original.secret_rotated_at ?? 'null'})`,
          { hint: `see \`svc webhooks get ${webhook}\`` },
        );
      }
    },
  };
}
