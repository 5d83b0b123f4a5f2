import type { WebhookWithSecret } from '../../api/schemas/webhooks.js';
import type { Context } from '../../context.js';
import { afterLabel } from '../../output/format.js';
import { type Made, SecretFile, type SecretIntent } from '../../system/secret-file.js';
import { refuseUnusableSecret } from '../../system/secret-form.js';
import { heldUntilClose } from '../replayed-creation.js';
import { type SecretDestination, secretDestination as sharedDestination } from '../secret-destination.js';

export type { SecretDestination } from '../secret-destination.js';

import { webhookFields } from './shared.js';

/** A webhook's signing secret follows the rule of every secret svc receives once. */
export function secretDestination(flags: Record<string, unknown>, what: string): SecretDestination {
  return sharedDestination(flags, {
    what,
    secret: 'signing secret',
    why: 'the secret is shown only in this answer; without it, deliveries cannot be verified',
  });
}

/**
 * Runs the request that returns the secret with its file already made (so a bad path fails
 * before the secret exists), writes the secret, and prints the webhook with the secret, or the
 * file it went to. A secret printed is in no other place: `ifLost` says what it is and how to
 * get a usable one, for an output that is lost (Context.outputIsOnlyCopyOf), or a file that
 * cannot take it (a full disk), with `made` (what the request made: `webhook wh_… was created`).
 * `done` is the ✓ line's head for a change this run made (`created webhook wh_… in acme-treasury`),
 * which then also says where the secret went; undefined (a replayed creation, which an info line
 * says is an earlier run's) prints no ✓.
 */
export async function withSecretOutput(
  ctx: Context,
  destination: SecretDestination,
  request: () => Promise<WebhookWithSecret>,
  ifLost: (webhook: WebhookWithSecret) => [what: string, remedy: string],
  made: (webhook: WebhookWithSecret) => string | Omit<Made, 'what' | 'remedy'>,
  intent?: SecretIntent,
  done?: (webhook: WebhookWithSecret) => string | undefined,
): Promise<WebhookWithSecret> {
  const file = destination.file
    ? await heldUntilClose(ctx, SecretFile.create(destination.file, '--secret-file', intent))
    : undefined;
  let data: WebhookWithSecret;
  try {
    data = await request();
    const [what, remedy] = ifLost(data);
    const done = made(data);
    const change = typeof done === 'string' ? { made: done } : done;
    if (file) await file.write(data.secret, 'secret', { ...change, what, remedy });
    // Shown, the same rule as written (attack27a F1): an unusable secret is not printed as one.
    else refuseUnusableSecret(data.secret, 'secret', change.made, remedy);
  } catch (error) {
    await file?.discard();
    throw error;
  }
  if (data.secret) ctx.secrets.add(data.secret);
  if (!destination.file) ctx.outputIsOnlyCopyOf(...ifLost(data));
  if (ctx.out.isMachine) {
    if (!destination.file) await ctx.out.json(data);
    else {
      const { secret: _secret, warning: _warning, ...rest } = data;
      await ctx.out.json({ ...rest, secret_file: destination.file });
    }
    return data;
  }
  await ctx.out.record(data, [
    ...webhookFields(data),
    ['signing secret', destination.file ? `written to ${destination.file} (mode 0600)` : data.secret],
  ]);
  const head = done?.(data);
  if (destination.file) {
    if (head)
      ctx.out.success(`${head}; its signing secret is in ${destination.file} (mode 0600), not shown again`);
    else ctx.out.info(`the signing secret is in ${destination.file}; it is not shown again`);
  } else {
    if (head) ctx.out.success(head);
    ctx.out.warn(afterLabel(data.warning || 'store the signing secret now: it is not shown again'));
  }
  return data;
}
