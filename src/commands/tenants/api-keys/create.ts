// Just over 300 lines: the verb's options and help, a key received once (secret file, stored
// answers), and what it says of a key that may stop (its issuer's holds).
import { Command, Option } from 'commander';
import { characters } from '../../../api/characters.js';
import { API_KEY_LIMITS } from '../../../api/constants.js';
import { spreadAsTheyCame, withNumbersOf } from '../../../api/numbers-as-they-came.js';
import { API_KEY_KINDS, type ApiKeyCreated } from '../../../api/schemas/api-keys.js';
import { staticCredentials } from '../../../auth/credentials.js';
import { askAboutKey } from '../../../auth/key-state.js';
import { svcCommand } from '../../../config/settings.js';
import type { Context } from '../../../context.js';
import { SvcError, UsageError } from '../../../errors.js';
import { newIdempotencyKey } from '../../../http/idempotency.js';
import { afterLabel } from '../../../output/format.js';
import type { Platform } from '../../../platform/index.js';
import { refuseUnusableSecret } from '../../../system/secret-form.js';
import { shellWord } from '../../../system/shell-words.js';
import {
  choiceFlag,
  examples,
  idempotencyKeyFlag,
  type MakeContext,
  nonEmpty,
  reasonFlag,
} from '../../kit.js';
import { pickTenant } from '../../pick.js';
import {
  asReplayed,
  type Creation,
  createOnce,
  type EitherRun,
  earlierRunNote,
  goneSince,
  idempotencyKeyHelp,
  interruptedCheck,
  keptUntil,
  madeNow,
  secretFileFor,
} from '../../replayed-creation.js';
import { newSecretFile, secretDestination } from '../../secret-destination.js';

type Kind = (typeof API_KEY_KINDS)[number];

export interface ApiKeyCreateOptions {
  tenant: string | undefined;
  kind: Kind | undefined;
  name: string | undefined;
  justification: string | undefined;
  secretFile: string | undefined;
  /** --show-secret: print a service_role key (which is never printed unasked). */
  showSecret: boolean;
  idempotencyKey: string | undefined;
}

/**
 * A service_role key follows the rule of every secret svc receives once that grants power
 * (secret-destination.ts): --secret-file or --show-secret, refused before anything is created. A
 * publishable key is printed unasked: it is read-only (tenant_viewer) and made to be embedded in
 * the clients that read with it, so seeing it in a log is not a leak of power over the tenant.
 */
function keyDestination(kind: Kind | undefined, flags: Record<string, unknown>): void {
  secretDestination(
    flags,
    {
      what: 'svc tenants api-keys create',
      secret: 'service_role key',
      why: 'the key acts as tenant_admin until revoked and is shown only in this answer',
    },
    kind === 'service_role',
  );
}

export function parseApiKeyCreate(
  tenant: string | undefined,
  flags: Record<string, unknown>,
): ApiKeyCreateOptions {
  const options: ApiKeyCreateOptions = {
    tenant: tenant === undefined ? undefined : nonEmpty('TENANT', tenant),
    kind: choiceFlag('--kind', flags.kind, API_KEY_KINDS),
    name: flags.name === undefined ? undefined : nonEmpty('--name', flags.name),
    justification:
      flags.justification === undefined ? undefined : reasonFlag('--justification', flags.justification),
    secretFile: flags.secretFile === undefined ? undefined : newSecretFile(flags.secretFile),
    showSecret: flags.showSecret === true,
    idempotencyKey: idempotencyKeyFlag(flags.idempotencyKey),
  };
  const { min, max } = API_KEY_LIMITS.justification;
  if (
    options.kind === 'service_role' &&
    options.justification !== undefined &&
    characters(options.justification) < min
  ) {
    throw new UsageError(`--justification must say why, in at least ${min} characters`);
  }
  if (options.justification !== undefined && characters(options.justification) > max) {
    throw new UsageError(`--justification is longer than ${max} characters`);
  }
  if (options.name !== undefined && characters(options.name) > API_KEY_LIMITS.name.max) {
    throw new UsageError(`--name is longer than ${API_KEY_LIMITS.name.max} characters`);
  }
  keyDestination(options.kind, flags);
  return options;
}

/** Asks for what is missing on a terminal; elsewhere a missing value is a usage error. */
async function complete(
  ctx: Context,
  options: ApiKeyCreateOptions,
): Promise<{ kind: Kind; justification?: string }> {
  let kind = options.kind;
  if (!kind) {
    if (!ctx.canPrompt) throw new UsageError('--kind is required: publishable or service_role');
    kind = await ctx.prompter.select<Kind>('Kind of key', [
      { name: 'publishable', value: 'publishable', description: 'read-only within the tenant' },
      {
        name: 'service_role',
        value: 'service_role',
        description: 'full access within the tenant; needs a justification',
      },
    ]);
  }
  let justification = options.justification;
  if (kind === 'service_role' && !justification) {
    if (!ctx.canPrompt) throw new UsageError('a service_role key needs --justification (why it is needed)');
    justification = await ctx.prompter.input('Justification (why is a service-role key needed?)', {
      validate: (v) => {
        const { min } = API_KEY_LIMITS.justification;
        return characters(v.trim()) >= min ? true : `at least ${min} characters`;
      },
    });
  }
  return justification === undefined ? { kind } : { kind, justification };
}

export async function runApiKeyCreate(ctx: Context, options: ApiKeyCreateOptions): Promise<void> {
  const tenant = await pickTenant(ctx, options.tenant);
  const { kind, justification } = await complete(ctx, options);
  // The kind asked on a terminal: the same rule, still before anything is created.
  keyDestination(kind, { secretFile: options.secretFile, showSecret: options.showSecret });
  // The file exists (0600, new) before the key does: a bad path fails before anything is created.
  const key = options.idempotencyKey ?? newIdempotencyKey();
  const keys = (rest: string) => svcCommand(ctx.settings(), `tenants api-keys ${rest}`);
  const file = await secretFileFor(
    ctx,
    options.secretFile,
    key,
    `a ${kind} API key of ${tenant.id}`,
    `see it with: ${keys(`ls ${shellWord(tenant.id)}`)}, and if nobody holds its key, revoke it with: ${keys(`revoke ${shellWord(tenant.id)} KEY_ID --yes`)}`,
  );
  const keyLost = (made: ApiKeyCreated) =>
    `revoke it with: ${keys(`revoke ${shellWord(tenant.id)} ${shellWord(made.id)} --yes`)}, and create another with --secret-file PATH`;
  let data: ApiKeyCreated;
  let creation: Creation<ApiKeyCreated>;
  try {
    const platform = await ctx.platform();
    creation = await createOnce(
      options.idempotencyKey,
      'API key',
      (idempotencyKey) =>
        platform.tenants.apiKeys.create(
          tenant.id,
          {
            kind,
            ...(options.name ? { name: options.name } : {}),
            ...(justification ? { justification } : {}),
          },
          { idempotencyKey },
        ),
      undefined,
      key,
    );
    data = creation.mayBeStale
      ? await keyNow(ctx, platform, creation.data, creation.key, creation.unmarked)
      : creation.data;
    const made = `${data.kind} API key ${data.id} of tenant ${data.tenant_id} was created`;
    if (!file) refuseUnusableSecret(data.key, 'key', made, keyLost(data));
    else {
      await file.write(data.key, 'key', {
        made,
        what: 'its key',
        remedy: keyLost(data),
        until: keptUntil(data.created_at),
        anew: `a second ${data.kind} API key`,
      });
    }
  } catch (error) {
    await file?.discard();
    throw error;
  }
  if (creation.byEarlierRun && !ctx.out.isMachine) ctx.out.info(earlierRunNote(created(data.id)));
  const fresh = asReplayed(data, creation.byEarlierRun);
  const shown = options.secretFile
    ? spreadAsTheyCame(fresh, { key: null, key_file: options.secretFile })
    : fresh;
  if (!options.secretFile) {
    ctx.outputIsOnlyCopyOf(`API key ${data.id}`, keyLost(data));
  }
  if (ctx.out.isMachine) return ctx.out.json(shown);
  await ctx.out.record(shown, [
    ['id', data.id],
    ['kind', data.kind],
    ['name', data.name],
    ['tenant', `${await tenant.label()} ${data.tenant_id}`],
    ['created', data.created_at, 'time'],
    options.secretFile ? ['key file', options.secretFile] : ['key', data.key],
  ]);
  // A ✓ for the key this run made, as its siblings' (what, whose, where the key went); a replay is
  // an earlier run's (its info line says so): only the file it wrote is this run's doing.
  const made = creation.byEarlierRun
    ? undefined
    : `created ${data.kind} API key ${data.id}${data.name ? ` (${data.name})` : ''} of ${await tenant.label()}`;
  if (options.secretFile) {
    ctx.out.success(
      made
        ? `${made}; its key is in ${options.secretFile} (mode 0600), not shown again`
        : `wrote the key of API key ${data.id} to ${options.secretFile} (mode 0600)`,
    );
  } else {
    if (made) ctx.out.success(made);
    ctx.out.warn(afterLabel(data.warning || 'store this key now: it is not shown again'));
  }
}

const created = (id: string) => ({ what: `API key ${id}`, noun: 'API key', secret: 'key' });

/**
 * A replayed creation is the answer of the day the key was issued: it may have been revoked
 * since (the platform has no GET of one key: the tenant's list, revoked keys included, says), or
 * stopped — not revoked, but refused while its issuer holds its role only until some time (the key
 * itself, asked GET /v1/me, says why): either way neither printed nor written as if usable.
 */
async function keyNow(
  ctx: Context,
  platform: Platform,
  made: ApiKeyCreated,
  key: string,
  unmarked: EitherRun,
): Promise<ApiKeyCreated> {
  const gone = { ...created(made.id), unmarked };
  // Every page: a key just made is the last of a list paged oldest first (review18b R11); not
  // listed yet, under the user's own unmarked key, it is read again while the list may lag (this
  // run's own creation, just made: review18b R2).
  const now = await madeNow(ctx, gone, key, made.created_at, () =>
    platform.tenants.apiKeys
      .listEvery(made.tenant_id)
      .then(({ items }) => items.find((k) => k.id === made.id)),
  );
  const interrupted = () =>
    interruptedCheck(gone.what, key, 'key', 'the same command again', undefined, made.created_at, unmarked);
  if (now.revoked_at) throw goneSince(gone, key, 'revoked');
  // A Ctrl-C that cut askAboutKey (thrown by it), or came just after, is this check's.
  // The key this server just made, asked about at this server.
  const state = await askAboutKey(async () => platform, staticCredentials(made.key, 'the new API key')).catch(
    (error) => {
      throw ctx.signal.aborted ? interrupted() : error;
    },
  );
  if (ctx.signal.aborted) throw interrupted();
  if (state?.state === 'stopped') throw stoppedSince(ctx, made, key, state.reason);
  return spreadAsTheyCame(made, now, withNumbersOf(made, { key: made.key, warning: made.warning }));
}

/** A replayed key that does not act now (its issuer's hold has an end): exit 4, the key not written. */
function stoppedSince(ctx: Context, made: ApiKeyCreated, key: string, reason: string): SvcError {
  const revoke = svcCommand(
    ctx.settings(),
    `tenants api-keys revoke ${shellWord(made.tenant_id)} ${shellWord(made.id)} --yes`,
  );
  return new SvcError(
    'forbidden',
    `API key ${made.id} was created by an earlier run with idempotency key ${key}, and the platform refuses it now: ${reason}; ` +
      'svc neither prints nor writes it',
    {
      code: 'api_key_stopped',
      hint: `it is stopped, not revoked: it acts again once its issuer holds its role without an end date; if it is not to, revoke it with: ${revoke}`,
    },
  );
}

export function createCommand(make: MakeContext): Command {
  return new Command('create')
    .argument('[tenant]', 'tenant id or slug (asked on a terminal)')
    .description(
      'Issue an API key for a tenant. The key is shown once, or written to --secret-file with mode 0600. A\n' +
        'service_role key is printed only with --show-secret (one of the two is required, as for webhook\n' +
        'signing secrets); a publishable key, read-only and made to be embedded, is printed by default.\n' +
        'use it as SVC_TOKEN or with `svc login --with-token`. A publishable key acts as tenant_viewer, a\n' +
        'service_role key as tenant_admin, until it is revoked: you need api_key.manage and every permission\n' +
        'of that role, all held without an end date (a just-in-time grant of any of them is refused: the key\n' +
        'would outlive it; the one rule of standing credentials, as for OAuth client and webhook secrets).\n' +
        'Run again with the same --idempotency-key (within 24 hours), it issues no second key: svc says it was\n' +
        'already created by an earlier run ("replayed": true with --json); revoked since: exit 5, the stale key\n' +
        "neither printed nor written; so is one just made that the server's key list does not show yet (a\n" +
        'read that lags): the same command with the same --idempotency-key then gets it; stopped since (its issuer now holds its role only until some time, so the\n' +
        'platform refuses it until they hold it without an end date again): exit 4, not written either, with the\n' +
        'reason and the command that revokes it. When every answer is lost, the error names the key to re-run with.\n' +
        'A secret file the secret cannot be written to once it arrived (a disk that filled up) is said as a\n' +
        'lost answer too: what was made, and the key whose re-run gets the secret. A disk full already is\n' +
        'refused before anything is sent; --secret-file - is refused (print with --show-secret).',
    )
    .addOption(
      new Option('--kind <kind>', 'publishable or service_role (asked on a terminal)').choices(API_KEY_KINDS),
    )
    .addOption(
      new Option(
        '--name <name>',
        `a name to recognise the key by (up to ${API_KEY_LIMITS.name.max} characters)`,
      ),
    )
    .addOption(
      new Option(
        '--justification <text>',
        `why a service-role key is needed: required for service_role, ${API_KEY_LIMITS.justification.min} to ${API_KEY_LIMITS.justification.max} characters`,
      ),
    )
    .addOption(
      new Option('--secret-file <path>', 'write the key to this new file (mode 0600) instead of printing it'),
    )
    .addOption(new Option('--show-secret', 'print the key (a service_role key needs this or --secret-file)'))
    .addOption(new Option('--idempotency-key <key>', idempotencyKeyHelp('API key')))
    .addHelpText(
      'after',
      examples(
        ['svc tenants api-keys create acme-treasury --kind publishable --name dashboards', 'a read-only key'],
        [
          "svc tenants api-keys create acme-treasury --kind service_role --justification 'nightly ledger sync job' --secret-file sync.key",
          'a service-role key, written to a file',
        ],
      ),
    )
    .action(async (tenant: string | undefined, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseApiKeyCreate(tenant, flags);
      await runApiKeyCreate(await make(cmd), options);
    });
}
