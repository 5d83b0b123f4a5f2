// Just over 300 lines: the verb's many options (lifetimes, grant types, PKCE) with their help, and a
// creation whose secret is received once (stored answers checked in replayed-creation.ts).
import { Command, Option } from 'commander';
import { OAUTH_GRANT_TYPES, OAUTH_LIMITS, type OAuthGrantType } from '../../api/constants.js';
import { acceptsSvcRedirect } from '../../api/redirect-uris.js';
import type { OAuthClientWithSecret } from '../../api/schemas/oauth.js';
import { redactUrlText } from '../../api/secret-names.js';
import { commandLine, svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { newIdempotencyKey } from '../../http/idempotency.js';
import { fieldFlags } from '../../output/field-flags.js';
import { afterLabel, quoted } from '../../output/format.js';
import { refuseUnusableSecret } from '../../system/secret-form.js';
import { pathWord, shellWord } from '../../system/shell-words.js';
import { changedIn } from '../changed-in.js';
import {
  choiceFlag,
  collect,
  examples,
  idempotencyKeyFlag,
  intFlag,
  type MakeContext,
  nonEmpty,
  parseScopes,
  refuseJoinedValues,
} from '../kit.js';
import {
  asItIsNow,
  asReplayed,
  type Creation,
  createOnce,
  earlierRunNote,
  idempotencyKeyHelp,
  keptUntil,
  secretFileFor,
} from '../replayed-creation.js';
import { type SecretDestination, secretDestination } from '../secret-destination.js';
import { clientSecretEvidence } from '../secret-evidence.js';
import { CLIENT_FIELD_FLAGS, clientFields } from './shared.js';

export interface OAuthCreateOptions {
  name: string;
  description: string | undefined;
  redirectUris: string[];
  grantTypes: OAuthGrantType[] | undefined;
  scopes: string[];
  tokenLifetime: number | undefined;
  refreshTokenLifetime: number | undefined;
  pkceRequired: boolean;
  secret: SecretDestination;
  idempotencyKey: string | undefined;
}

/**
 * An OAuth client secret follows the rule of every secret svc receives once (secret-destination.ts):
 * --secret-file or --show-secret, refused before anything is sent.
 */
export function clientSecretDestination(flags: Record<string, unknown>, what: string): SecretDestination {
  return secretDestination(flags, {
    what,
    secret: 'client secret',
    why: 'the secret is shown only in this answer, and whoever holds it gets the tokens users approve for the client',
  });
}

export const MAX_SECONDS = 2 ** 31 - 1;

export function redirectUri(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`--redirect-uri ${quoted(redactUrlText(raw))} is not an absolute http(s) URI`, {
      hint: 'for example https://app.example.com/oauth/callback, or http://127.0.0.1/callback for a native app',
    });
  }
  // A comma may belong to a URI (`?a=1,2`), but not before another URI: `a,b` is two redirect URIs.
  // Once a query or fragment has begun, a comma and a URL after it are the query's own
  // (`?return=https://a/x,https://a/y`, review26b L1): that value is one URI, as written.
  const query = raw.search(/[?#]/);
  const head = query < 0 ? raw : raw.slice(0, query);
  const parts = head.split(/,(?=\s*https?:\/\/)/i);
  parts[parts.length - 1] += query < 0 ? '' : raw.slice(query);
  refuseJoinedValues(
    '--redirect-uri',
    raw,
    parts.map((part) => part.trim()),
  );
  return raw;
}

export function parseOAuthCreate(flags: Record<string, unknown>): OAuthCreateOptions {
  const uris = (flags.redirectUri as string[] | undefined) ?? [];
  if (uris.length === 0) throw new UsageError('--redirect-uri is required (repeat it for several URIs)');
  const grants = flags.grantType as string[] | undefined;
  const name = nonEmpty('--name', flags.name);
  const redirectUris = uris.map(redirectUri);
  const grantTypes = grants?.map((g) => choiceFlag('--grant-type', g, OAUTH_GRANT_TYPES)!);
  const tokenLifetime = intFlag('--token-lifetime', flags.tokenLifetime, 1, MAX_SECONDS);
  const refreshTokenLifetime = intFlag(
    '--refresh-token-lifetime',
    flags.refreshTokenLifetime,
    1,
    MAX_SECONDS,
  );
  const scopes = parseScopes('--scope', flags.scope);
  if (scopes.length === 0) {
    throw new UsageError('--scope is required: the scopes the client may ask for (repeat it for several)', {
      hint: 'e.g. --scope read:reconciliations --scope read:exceptions',
    });
  }
  return {
    name,
    description: flags.description === undefined ? undefined : String(flags.description),
    redirectUris,
    grantTypes,
    scopes,
    tokenLifetime,
    refreshTokenLifetime,
    pkceRequired: flags.pkce !== false,
    secret: clientSecretDestination(flags, 'svc oauth create'),
    idempotencyKey: idempotencyKeyFlag(flags.idempotencyKey),
  };
}

/**
 * Prints a client with its one-time secret: the secret on stdout with the warning, or only the
 * file it went to. A secret printed is in no other place: `ifLost` names it and its remedy
 * (Context.outputIsOnlyCopyOf). `done` is the ✓ line's head for a client this run made, which then
 * says where the secret went too (a creation, a rotation); none for a replay (an earlier run's).
 */
export async function printClientWithSecret(
  ctx: Context,
  data: OAuthClientWithSecret & { replayed?: true },
  secretFile: string | undefined,
  ifLost: [what: string, remedy: string],
  done?: string,
): Promise<void> {
  if (!secretFile) ctx.outputIsOnlyCopyOf(...ifLost);
  if (ctx.out.isMachine) {
    if (!secretFile) return ctx.out.json(data);
    // The secret is in the file: the server's "store it now" is not for this output.
    const { client_secret: _secret, warning: _warning, ...rest } = data;
    return ctx.out.json({ ...rest, client_secret_file: secretFile });
  }
  await ctx.out.record(data, [
    ...clientFields(data),
    ['client secret', secretFile ? `written to ${secretFile} (mode 0600)` : data.client_secret],
  ]);
  if (secretFile) {
    if (done) ctx.out.success(`${done}; its client secret is in ${secretFile} (mode 0600), not shown again`);
    else ctx.out.info(`the client secret is in ${secretFile}; it is not shown again`);
  } else {
    if (done) ctx.out.success(done);
    ctx.out.warn(afterLabel(data.warning || 'store the client secret now: it is not shown again'));
  }
}

export async function runOAuthCreate(ctx: Context, options: OAuthCreateOptions): Promise<void> {
  const key = options.idempotencyKey ?? newIdempotencyKey();
  const file = await secretFileFor(
    ctx,
    options.secret.file,
    key,
    `an OAuth client named ${quoted(options.name)}`,
    `see it with: ${svcCommand(ctx.settings(), 'oauth ls')}, and if nobody holds its secret, delete it with: ${svcCommand(ctx.settings(), 'oauth delete CLIENT_ID --yes')}`,
  );
  let data: OAuthClientWithSecret;
  let creation: Creation<OAuthClientWithSecret>;
  try {
    const platform = await ctx.platform();
    creation = await createOnce(
      options.idempotencyKey,
      'client',
      (idempotencyKey) =>
        platform.oauth.clients.create(
          {
            name: options.name,
            ...(options.description === undefined ? {} : { description: options.description }),
            redirect_uris: options.redirectUris,
            ...(options.grantTypes ? { grant_types: options.grantTypes } : {}),
            scopes: options.scopes,
            ...(options.tokenLifetime === undefined ? {} : { token_lifetime_seconds: options.tokenLifetime }),
            ...(options.refreshTokenLifetime === undefined
              ? {}
              : { refresh_token_lifetime_seconds: options.refreshTokenLifetime }),
            pkce_required: options.pkceRequired,
          },
          { idempotencyKey },
        ),
      undefined,
      key,
    );
    data = creation.mayBeStale
      ? await asItIsNow(
          ctx,
          () => platform.oauth.clients.get(creation.data.client_id),
          creation.data,
          ['client_secret', 'warning'],
          { ...created(creation.data.client_id), unmarked: creation.unmarked },
          creation.key,
          commandLine(ctx.settings())(
            `oauth rotate-secret ${shellWord(creation.data.client_id)} --secret-file PATH --yes`,
          ),
          clientSecretEvidence,
        )
      : creation.data;
    const [what, remedy] = secretLost(ctx, data.client_id);
    const made = `OAuth client ${data.client_id} was created`;
    if (file) {
      await file.write(data.client_secret, 'client_secret', {
        made,
        what,
        remedy,
        until: keptUntil(data.created_at),
        anew: 'a second OAuth client',
      });
    } else refuseUnusableSecret(data.client_secret, 'client_secret', made, remedy);
  } catch (error) {
    await file?.discard();
    throw error;
  }
  if (creation.byEarlierRun && !ctx.out.isMachine) ctx.out.info(earlierRunNote(created(data.client_id)));
  await printClientWithSecret(
    ctx,
    asReplayed(data, creation.byEarlierRun),
    options.secret.file,
    secretLost(ctx, data.client_id),
    creation.byEarlierRun
      ? undefined
      : `created OAuth client ${data.name} (${data.client_id})${changedIn(ctx.settings())}`,
  );
  // Only for a client svc's loopback redirect can use: for another, the flow cannot finish.
  if (!ctx.out.isMachine && acceptsSvcRedirect(data.redirect_uris ?? [])) {
    // A secret shown (not written to a file) is in no file to name: the line that works as printed
    // is the one that asks for it. --client-secret-stdin, pasted on the terminal it was shown on,
    // met a terminal on stdin and was refused (exit 2).
    const file = options.secret.file;
    const secret = file === undefined ? '' : ` --client-secret-file ${pathWord(file)}`;
    const asks = file === undefined ? ' (it asks for the client secret)' : '';
    ctx.out.info(
      `try it${asks}: ${svcCommand(ctx.settings(), `oauth authorize --client-id ${shellWord(data.client_id)}${secret}`)}`,
    );
  }
}

const created = (id: string) => ({ what: `OAuth client ${id}`, noun: 'client', secret: 'secret' });

/** What a new client's secret is, and how to get a usable one when it is lost. */
const secretLost = (ctx: Context, id: string): [what: string, remedy: string] => [
  `OAuth client ${id}'s secret`,
  `get a new one with: ${svcCommand(ctx.settings(), `oauth rotate-secret ${shellWord(id)} --secret-file PATH --yes`)}`,
];

export function createCommand(make: MakeContext): Command {
  const { tokenLifetime, refreshTokenLifetime } = OAUTH_LIMITS;
  const command = new Command('create')
    .summary('Register an OAuth client in the tenant (tenant_admin)')
    .description(
      'Register an OAuth 2.0 client for a third-party integration in the current tenant (role\n' +
        'tenant_admin). The client secret is returned once: --secret-file writes it to a new file with\n' +
        'mode 0600 and prints only the path, --show-secret prints it with a warning; one is required (as\n' +
        'for webhook signing secrets and service_role keys), checked before anything is sent. It is never\n' +
        'logged (--debug masks it). --json prints the whole creation response (the secret, or\n' +
        'client_secret_file). Each --scope takes the\n' +
        'permissions it reaches, held by you in the tenant without an end date (admin: every permission\n' +
        'of the tenant; read:exceptions: exception.read; read:tenants: none): the client outlasts a\n' +
        'just-in-time grant. So does oauth_client.manage itself, whatever the scopes reach: the secret is\n' +
        'a standing credential (as issuing an API key or rotating a secret). 403 insufficient_permission\n' +
        'otherwise (exit 4), naming what you lack or until when you hold it. Only with your own login:\n' +
        "with an API key or a third-party client's token, 403 user_required (exit 4), as the client and\n" +
        'its secret would outlive the key or the client it was made through.\n\n' +
        `Sandbox bounds: --token-lifetime ${tokenLifetime.min}-${tokenLifetime.max} s (default ${tokenLifetime.default}),\n` +
        `--refresh-token-lifetime ${refreshTokenLifetime.min}-${refreshTokenLifetime.max} s (default ${refreshTokenLifetime.default}): ` +
        'each refresh token lives that\nlong from its issue (it slides with every refresh), but none beyond 365 days after the login\n' +
        'that started it. Redirect URIs are https, or http on 127.0.0.1/[::1] (any port is then\n' +
        'accepted at login time) or localhost (its port is matched too).\n\n' +
        'Run again with the same --idempotency-key (within 24 hours), it makes no second client: svc says\n' +
        'the client was already created by an earlier run and shows it as it is now ("replayed": true\n' +
        'with --json). A client deleted since: exit 5; so is one just made whose read-back the server does\n' +
        'not show yet (a read that lags): the same command with the same --idempotency-key then gets it and\n' +
        'its secret. A secret rotated since: the stale secret is neither printed nor written, exit 6.\n' +
        '"An earlier run" is said only when the server marks its stored answer (Idempotent-Replayed or\n' +
        "another usual spelling) and not to svc's retry after this run's answer was lost; otherwise a\n" +
        "client deleted or rotated since is said to be this run's or an earlier run's, and one not shown\n" +
        'is read again after 0.25, 0.5 and 1 s. When every answer is lost, the error names the key to\n' +
        're-run with.\n' +
        'A secret file the secret cannot be written to once it arrived (a disk that filled up) is said as a\n' +
        'lost answer too: what was made, and the key whose re-run gets the secret. A disk full already is\n' +
        'refused before anything is sent; --secret-file - is refused (print with --show-secret).',
    )
    .addOption(new Option('--name <name>', 'display name (required)'))
    .addOption(
      new Option('--redirect-uri <uri>', 'allowed redirect URI (required, repeatable)').argParser(collect),
    )
    .addOption(new Option('--description <text>', 'free text'))
    .addOption(
      new Option('--grant-type <type>', 'authorization_code or refresh_token (repeatable; default both)')
        .choices(OAUTH_GRANT_TYPES)
        .argParser(collect),
    )
    .addOption(
      new Option('--scope <scope>', 'a scope the client may ask for (required, repeatable)').argParser(
        collect,
      ),
    )
    .addOption(new Option('--token-lifetime <seconds>', 'access token lifetime'))
    .addOption(new Option('--refresh-token-lifetime <seconds>', 'refresh token lifetime'))
    .addOption(new Option('--no-pkce', 'do not require PKCE from this client (not recommended)'))
    .addOption(
      new Option(
        '--secret-file <path>',
        'write the secret to this new file (mode 0600) instead of printing it',
      ),
    )
    .addOption(new Option('--show-secret', 'print the secret (it is not shown again)'))
    .addOption(new Option('--idempotency-key <key>', idempotencyKeyHelp('client')))
    .addHelpText(
      'after',
      examples(
        [
          'svc oauth create --name "Vendor portal" --redirect-uri https://vendor.example/callback --scope read:reconciliations --secret-file vendor.secret',
          'a client for a web integration; the secret goes to a 0600 file',
        ],
        [
          'svc oauth create --name "Local test" --redirect-uri http://127.0.0.1/callback --scope read:exceptions --secret-file local.secret',
          'a client to try with `svc oauth authorize` (its loopback redirect URI takes any port)',
        ],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseOAuthCreate(flags);
      await runOAuthCreate(await make(cmd), options);
    });
  return fieldFlags(command, CLIENT_FIELD_FLAGS);
}
