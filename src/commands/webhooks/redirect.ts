import type { Context } from '../../context.js';
import { describeError, SvcError } from '../../errors.js';

/**
 * `svc webhooks listen --webhook W`: the webhook delivers to the listener while it runs, as
 * `stripe listen` does, and is put back afterwards. The secret is rotated so the listener can
 * verify (the platform never shows a secret twice); during the session every delivery is signed
 * with the new secret and the old one, so a receiver that kept the old secret still verifies
 * captures. On the way out the URL is set back and the rotation undone (the platform's
 * restore-secret: the old secret is the only one again), so the real receiver needs nothing new.
 */
export interface Redirection {
  webhook: string;
  originalUrl: string;
  /** The signing secret of the session. */
  secret: string;
  /** Sets the URL back and undoes the rotation; throws (saying what to run) if either fails. */
  restore(): Promise<void>;
}

/** The commands that put the webhook back by hand, for when svc cannot (killed, network down). */
export function restoreCommands(webhook: string, url: string): string {
  return (
    `svc api PATCH /v1/webhooks/${webhook} -f url=${JSON.stringify(url)} && ` +
    `svc api POST /v1/webhooks/${webhook}/restore-secret`
  );
}

export async function redirectWebhook(ctx: Context, webhook: string, url: string): Promise<Redirection> {
  const platform = await ctx.platform();
  const original = await platform.webhooks.get(webhook);
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
  return {
    webhook,
    originalUrl: original.url,
    secret: rotated.secret,
    async restore() {
      const failures: string[] = [];
      await platform.webhooks
        .update(webhook, { url: original.url }, own())
        .catch((error: unknown) => failures.push(`its URL: ${describeError(error)}`));
      await undoRotation().catch((error: unknown) => failures.push(`its secret: ${describeError(error)}`));
      if (failures.length > 0) {
        throw new SvcError('failure', `webhook ${webhook} was not put back (${failures.join('; ')})`, {
          hint: `put it back with: ${restoreCommands(webhook, original.url)}`,
        });
      }
    },
  };
}
