import type { WebhookWithSecret } from '../../api/schemas/webhooks.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { SecretFile, type SecretIntent, secretProblem } from '../../system/secret-file.js';
import { nonEmpty } from '../kit.js';
import { webhookFields } from './shared.js';

/**
 * Where a webhook's one-time signing secret goes: a new 0600 file (--secret-file), or stdout
 * when asked (--show-secret). Never printed unasked, and never lost: a command that would
 * create a secret with neither flag is refused before anything is sent.
 */
export interface SecretDestination {
  file: string | undefined;
  show: boolean;
}

export function secretDestination(flags: Record<string, unknown>, what: string): SecretDestination {
  const file = flags.secretFile === undefined ? undefined : nonEmpty('--secret-file', flags.secretFile);
  const show = flags.showSecret === true;
  if (file !== undefined && show) throw new UsageError('use --secret-file or --show-secret, not both');
  if (file === undefined && !show) {
    throw new UsageError(
      `${what} returns the signing secret once: pass --secret-file PATH (or --show-secret to print it)`,
      {
        hint: 'the secret is shown only in this answer; without it, deliveries cannot be verified',
      },
    );
  }
  return { file, show };
}

/**
 * Runs the request that returns the secret with its file already made (so a bad path fails
 * before the secret exists), writes the secret, and prints the webhook with the secret, or the
 * file it went to. A secret printed is in no other place: `ifLost` says what it is and how to
 * get a usable one, for an output that is lost (Context.outputIsOnlyCopyOf).
 */
export async function withSecretOutput(
  ctx: Context,
  destination: SecretDestination,
  request: () => Promise<WebhookWithSecret>,
  ifLost: (webhook: WebhookWithSecret) => [what: string, remedy: string],
  intent?: SecretIntent,
): Promise<WebhookWithSecret> {
  const file = destination.file
    ? await SecretFile.create(destination.file, '--secret-file', intent)
    : undefined;
  let data: WebhookWithSecret;
  try {
    data = await request();
    if (file) await file.write(data.secret, 'secret');
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
  // A secret a line cannot hold as it is (it spans lines) is shown as a JSON string: exactly.
  const odd = destination.file ? undefined : secretProblem(data.secret);
  await ctx.out.record(data, [
    ...webhookFields(data),
    [
      'signing secret',
      destination.file
        ? `written to ${destination.file} (mode 0600)`
        : odd
          ? JSON.stringify(data.secret)
          : data.secret,
    ],
  ]);
  if (odd) ctx.out.warn(`the server's signing secret is unusual (${odd}): shown above as a JSON string`);
  if (destination.file) ctx.out.info(`The signing secret is in ${destination.file}; it is not shown again.`);
  else ctx.out.warn(data.warning || 'store the signing secret now: it is not shown again');
  return data;
}
