import { Command, Option } from 'commander';
import type { EventType } from '../../api/constants.js';
import { parseHttpUrl } from '../../api/loopback.js';
import { redactUrlText } from '../../api/secret-names.js';
import { commandLine, svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { newIdempotencyKey } from '../../http/idempotency.js';
import { fieldFlags } from '../../output/field-flags.js';
import { quoted } from '../../output/format.js';
import { urlInWords } from '../../output/hosts.js';
import { shellWord } from '../../system/shell-words.js';
import { changedIn } from '../changed-in.js';
import { collect, examples, idempotencyKeyFlag, intFlag, type MakeContext, nonEmpty } from '../kit.js';
import {
  asItIsNow,
  asReplayed,
  createOnce,
  earlierRunNote,
  idempotencyKeyHelp,
  keptUntil,
  secretIntent,
} from '../replayed-creation.js';
import { webhookSecretEvidence } from '../secret-evidence.js';
import { type SecretDestination, secretDestination, withSecretOutput } from './secret-output.js';
import { eventTypeArg, WEBHOOK_FIELD_FLAGS } from './shared.js';

export interface WebhooksCreateOptions {
  url: string;
  eventTypes: string[];
  description: string | undefined;
  maxAttempts: number | undefined;
  disabled: boolean;
  secret: SecretDestination;
  idempotencyKey: string | undefined;
}

/** A target URL: absolute http(s) (the server checks the rest). */
export function targetUrl(raw: unknown): string {
  const value = nonEmpty('--url', raw);
  const url = parseHttpUrl(value);
  if (!url) {
    throw new UsageError(`--url ${quoted(redactUrlText(value))} is not an absolute http(s) URL`, {
      hint: 'for example https://hooks.example.com/svc',
    });
  }
  return value;
}

export function eventTypesFlag(raw: unknown): string[] {
  const values = (raw as string[] | undefined) ?? [];
  return [...new Set(values.flatMap((v) => v.split(',')).map((v) => eventTypeArg('--event-type', v)))];
}

export function parseWebhooksCreate(flags: Record<string, unknown>): WebhooksCreateOptions {
  if (flags.url === undefined) throw new UsageError('--url is required: the target that receives deliveries');
  const eventTypes = eventTypesFlag(flags.eventType);
  if (eventTypes.length === 0) {
    throw new UsageError('--event-type is required (repeat it, or separate kinds with commas)', {
      hint: 'e.g. --event-type exception.sla.breached --event-type exception.created',
    });
  }
  return {
    url: targetUrl(flags.url),
    eventTypes,
    description: flags.description === undefined ? undefined : String(flags.description),
    maxAttempts: intFlag('--max-attempts', flags.maxAttempts, 1, 20),
    disabled: flags.disabled === true,
    secret: secretDestination(flags, 'svc webhooks create'),
    idempotencyKey: idempotencyKeyFlag(flags.idempotencyKey),
  };
}

export async function runWebhooksCreate(ctx: Context, options: WebhooksCreateOptions): Promise<void> {
  const platform = await ctx.platform();
  const key = options.idempotencyKey ?? newIdempotencyKey();
  let byEarlierRun = false;
  const data = await withSecretOutput(
    ctx,
    options.secret,
    async () => {
      const creation = await createOnce(
        options.idempotencyKey,
        'webhook',
        (idempotencyKey) =>
          platform.webhooks.create(
            {
              url: options.url,
              event_types: options.eventTypes as EventType[],
              ...(options.description === undefined ? {} : { description: options.description }),
              ...(options.maxAttempts === undefined ? {} : { max_attempts: options.maxAttempts }),
              ...(options.disabled ? { status: 'disabled' as const } : {}),
            },
            { idempotencyKey },
          ),
        undefined,
        key,
      );
      if (!creation.mayBeStale) return creation.data;
      const now = await asItIsNow(
        ctx,
        () => platform.webhooks.get(creation.data.id),
        creation.data,
        ['secret', 'warning'],
        { ...created(creation.data.id), unmarked: creation.unmarked },
        creation.key,
        commandLine(ctx.settings())(
          `webhooks rotate-secret ${shellWord(creation.data.id)} --secret-file PATH`,
        ),
        webhookSecretEvidence,
      );
      if (!creation.byEarlierRun) return now;
      byEarlierRun = true;
      if (!ctx.out.isMachine) ctx.out.info(earlierRunNote(created(now.id)));
      return asReplayed(now, true);
    },
    (webhook) => [
      `webhook ${webhook.id}'s signing secret`,
      `get a new one with: ${svcCommand(ctx.settings(), `webhooks rotate-secret ${shellWord(webhook.id)} --secret-file PATH`)}`,
    ],
    (webhook) => ({
      made: `webhook ${webhook.id} was created`,
      until: keptUntil(webhook.created_at),
      anew: 'a second webhook',
    }),
    secretIntent(
      ctx,
      key,
      `a webhook to ${urlInWords(options.url)}`,
      `see it with: ${svcCommand(ctx.settings(), 'webhooks ls')}, and if nobody holds its secret, delete it with: ${svcCommand(ctx.settings(), 'webhooks delete WEBHOOK_ID --yes')}`,
    ),
    (webhook) => (byEarlierRun ? undefined : `created webhook ${webhook.id}${changedIn(ctx.settings())}`),
  );
  if (!ctx.out.isMachine)
    ctx.out.info(`try it: ${svcCommand(ctx.settings(), `webhooks test ${shellWord(data.id)}`)}`);
}

const created = (id: string) => ({ what: `webhook ${id}`, noun: 'webhook', secret: 'signing secret' });

export function createCommand(make: MakeContext): Command {
  const command = new Command('create')
    .summary('Subscribe a URL to events (returns the signing secret once)')
    .description(
      'Create a webhook: signed POSTs of the given event kinds go to --url. The signing secret is\n' +
        'returned once: --secret-file writes it to a new file (mode 0600, never over an existing file),\n' +
        '--show-secret prints it; one of them is required, so the secret is never lost nor shown unasked.\n' +
        'Run again with the same --idempotency-key (within 24 hours), it makes no second webhook: svc says\n' +
        'it was already created by an earlier run and shows it as it is now ("replayed": true with --json);\n' +
        'deleted since: exit 5; so is one just made whose read-back the server does not show yet (a read that\n' +
        'lags): the same command with the same --idempotency-key then gets it and its secret; its secret\n' +
        'rotated since: the stale secret is neither printed nor written, exit 6. "An earlier run" is said\n' +
        'only when the server marks its stored answer (Idempotent-Replayed or another usual spelling),\n' +
        "and not to svc's retry after this run's answer was lost; otherwise a webhook deleted or rotated\n" +
        "since is said to be this run's or an earlier run's, and one not shown is read again after 0.25,\n" +
        '0.5 and 1 s.\n' +
        'When every answer is lost, the error names the key to re-run with.\n' +
        'A secret file the secret cannot be written to once it arrived (a disk that filled up) is said as a\n' +
        'lost answer too: what was made, and the key whose re-run gets the secret. A disk full already is\n' +
        'refused before anything is sent; --secret-file - is refused (print with --show-secret).\n' +
        'The webhook and its secret outlast any just-in-time grant, so creating takes webhook.manage and the\n' +
        'read permission of each kind (exception.read for exception.*) held without an end date; else exit 4\n' +
        'naming what is lacking, or what ends and when (`svc plan` predicts it for a file).\n' +
        '(The reference does not show this operation; the sandbox serves POST /v1/webhooks.)',
    )
    .addOption(new Option('--url <url>', 'the target: an http(s) URL that receives POSTs (required)'))
    .addOption(
      new Option(
        '--event-type <kind>',
        'an event kind to deliver (required, repeatable or comma-separated)',
      ).argParser(collect),
    )
    .addOption(new Option('--description <text>', 'free text'))
    .addOption(new Option('--max-attempts <n>', 'attempt ceiling of each delivery, 1-20 (default 5)'))
    .addOption(new Option('--disabled', 'create it disabled (it receives no events until enabled)'))
    .addOption(
      new Option(
        '--secret-file <path>',
        'write the signing secret to this new file (mode 0600; its exact bytes, no newline)',
      ),
    )
    .addOption(new Option('--show-secret', 'print the signing secret (it is not shown again)'))
    .addOption(new Option('--idempotency-key <key>', idempotencyKeyHelp('webhook')))
    .addHelpText(
      'after',
      examples(
        [
          'svc webhooks create --url https://hooks.example.com/svc --event-type exception.sla.breached --secret-file whsec.txt',
          'subscribe; the secret goes to a 0600 file for `svc webhooks verify --secret-file`',
        ],
        [
          'svc webhooks create --url http://127.0.0.1:4011/ --event-type webhook.test,exception.created --show-secret --json',
          'a local target for `svc webhooks listen`, as JSON with the secret',
        ],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseWebhooksCreate(flags);
      await runWebhooksCreate(await make(cmd), options);
    });
  return fieldFlags(command, WEBHOOK_FIELD_FLAGS);
}
