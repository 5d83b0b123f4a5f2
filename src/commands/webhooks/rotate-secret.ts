import { Command, Option } from 'commander';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { newIdempotencyKey } from '../../http/idempotency.js';
import { shellWord } from '../../system/shell-words.js';
import { changedIn } from '../changed-in.js';
import { examples, idempotencyKeyFlag, type MakeContext } from '../kit.js';
import { pickWebhook, type WithOptionalWebhook, withWebhook } from '../pick.js';
import {
  keptUntil,
  rotateOnce,
  rotationSecretFlags,
  sayRotation,
  secretIntent,
} from '../replayed-creation.js';
import { webhookSecretEvidence } from '../secret-evidence.js';
import { restoreSecretCommand } from './by-hand.js';
import { type SecretDestination, secretDestination, withSecretOutput } from './secret-output.js';
import { webhookArg } from './shared.js';

export interface WebhooksRotateSecretOptions {
  webhook: string;
  secret: SecretDestination;
  idempotencyKey: string | undefined;
}

export function parseWebhooksRotateSecret(
  webhook: unknown,
  flags: Record<string, unknown>,
): WithOptionalWebhook<WebhooksRotateSecretOptions> {
  return {
    webhook: webhookArg(webhook),
    secret: secretDestination(flags, 'svc webhooks rotate-secret'),
    idempotencyKey: idempotencyKeyFlag(flags.idempotencyKey),
  };
}

export async function runWebhooksRotateSecret(
  ctx: Context,
  options: WebhooksRotateSecretOptions,
): Promise<void> {
  const platform = await ctx.platform();
  const what = `webhook ${options.webhook}`;
  const { to, next } = rotationSecretFlags(options.secret.file);
  const command = (rest: string) =>
    svcCommand(ctx.settings(), `webhooks rotate-secret ${shellWord(options.webhook)}${rest}`);
  const key = options.idempotencyKey ?? newIdempotencyKey();
  let replayed = false;
  const data = await withSecretOutput(
    ctx,
    options.secret,
    async () => {
      const rotation = await rotateOnce(
        options.idempotencyKey,
        {
          what,
          old: `${what}'s signing secret may already have been rotated out (it signs for 24 hours more)`,
          rerun: (key) => command(` --idempotency-key ${shellWord(key)}${to}`),
          again: command(to),
          againWritten: command(next),
          stillCurrent: webhookSecretEvidence,
        },
        (idempotencyKey) => platform.webhooks.rotateSecret(options.webhook, { idempotencyKey }),
        () => platform.webhooks.get(options.webhook),
        key,
      );
      replayed = rotation.byEarlierRun;
      return sayRotation(ctx, what, rotation, rotation.data);
    },
    // Rotating again at once would end the previous secret, which the receiver still uses.
    (webhook) => [
      'the new signing secret',
      `put the previous one back with: ${restoreSecretCommand(ctx.settings(), webhook.id)}, then rotate again with --secret-file PATH`,
    ],
    (webhook) => ({
      made: `${what}'s signing secret was rotated (the previous one signs for 24 hours more)`,
      until: keptUntil(webhook.secret_rotated_at),
      anew: 'a new rotation',
    }),
    secretIntent(
      ctx,
      key,
      `a new signing secret of ${what} (the previous one signs for 24 hours after)`,
      `see whether it was rotated then with: ${svcCommand(ctx.settings(), `webhooks get ${shellWord(options.webhook)}`)}`,
      command(` --idempotency-key ${shellWord(key)}${to}`),
    ),
    // The ✓ line of every change; none for a rotation an earlier run made (its note says so).
    (webhook) =>
      replayed
        ? undefined
        : `rotated the signing secret of webhook ${webhook.id}${changedIn(ctx.settings())}`,
  );
  if (!ctx.out.isMachine && data.previous_secret_expires_at) {
    ctx.out.info(
      `deliveries carry a signature with the previous secret too until ${data.previous_secret_expires_at}: switch the receiver before then`,
    );
    // A rotation within 24 h of another: the secrets rotated out before keep their own times.
    const earlier = (data.previous_secrets ?? []).slice(1);
    if (earlier.length === 1) {
      ctx.out.info(
        `the secret rotated out before it (at ${earlier[0]!.rotated_out_at}) still signs until ${earlier[0]!.expires_at}, as its rotation said`,
      );
    } else if (earlier.length > 1) {
      ctx.out.info(
        `the ${earlier.length} secrets rotated out before it still sign until the times their rotations said: ` +
          `${earlier.map((e) => `the one rotated out at ${e.rotated_out_at} until ${e.expires_at}`).join(', ')}`,
      );
    }
  }
}

export function rotateSecretCommand(make: MakeContext): Command {
  return new Command('rotate-secret')
    .summary("Replace a webhook's signing secret (returned once)")
    .description(
      'Give a webhook a new signing secret. For 24 hours every delivery carries two v1 signatures, one\n' +
        'per secret, so the receiver can switch without losing events. The new secret is returned once:\n' +
        '--secret-file writes it to a new file (mode 0600; exactly the key, no newline), --show-secret prints it; one is required.\n' +
        'Rotating again within those 24 hours ends no earlier promise on the sandbox: each old secret signs\n' +
        'until 24 hours after its own rotation (one more v1 each, up to a limit; beyond it, the rotation is\n' +
        'refused until the oldest stops). svc names every old secret that still signs, and until when.\n' +
        'The secret outlasts any just-in-time grant, so rotating takes webhook.manage and the read permission\n' +
        "of the webhook's kinds (exception.read for exception.*) held without an end date, as creating a\n" +
        'webhook does; else exit 4 naming what is lacking, or what ends and when. Only with your own login:\n' +
        "with an API key or a third-party client's token, 403 user_required (exit 4): the secret would\n" +
        'outlive the key or the client (so would svc webhooks listen --webhook, which rotates it).\n' +
        'When the answer is lost (Ctrl-C, a dropped connection) or unreadable (a 2xx that is not JSON), the\n' +
        'error names the idempotency key and `svc webhooks get` shows whether it was rotated: run again\n' +
        'with --idempotency-key KEY (within 24 hours) to get the same new secret without rotating again;\n' +
        'rotated again since: exit 6, not written; another rotation in the same second (told by its\n' +
        'secrets rotated out then): written, with a warning that it may be replaced. A server whose rotated-out secrets cannot tell (the reference lists none; the sandbox\n' +
        'does): a stored answer in the same second as the webhook now is written, with a warning that a\n' +
        'rotation in that second cannot be ruled out (in --json: "secret_may_be_replaced": true); a\n' +
        'rotation this command made itself carries no such doubt: one after the webhook as svc read it\n' +
        'just before the request (with a key), or one the server marks as no stored answer\n' +
        '(Idempotent-Replayed: false).',
    )
    .argument('[webhook]', 'webhook id (asked for on a terminal)')
    .addOption(
      new Option(
        '--secret-file <path>',
        'write the new secret to this new file (mode 0600; its exact bytes, no newline)',
      ),
    )
    .addOption(new Option('--show-secret', 'print the new secret (it is not shown again)'))
    .addOption(
      new Option(
        '--idempotency-key <key>',
        "the request's idempotency key (default: a new one); reuse the one an interrupted run named to get its new secret",
      ),
    )
    .addHelpText(
      'after',
      examples([
        'svc webhooks rotate-secret wh_123 --secret-file whsec-new.txt',
        'rotate; the secret goes to a file',
      ]),
    )
    .action(async (webhook: string | undefined, flags: Record<string, unknown>, cmd: Command) => {
      // Off a terminal, a WEBHOOK left out is said before --secret-file, as every verb says it
      // (pickWebhook's error); on one, the flags are checked before the webhook is asked for.
      if (webhook === undefined) {
        const early = await make(cmd, { argumentsFirst: true });
        if (!early.canPrompt) await pickWebhook(early, undefined);
      }
      const options = parseWebhooksRotateSecret(webhook, flags);
      const ctx = await make(cmd);
      await runWebhooksRotateSecret(ctx, await withWebhook(ctx, options));
    });
}
