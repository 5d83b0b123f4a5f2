import { Command, Option } from 'commander';
import type { OAuthClientWithSecret } from '../../api/schemas/oauth.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { newIdempotencyKey } from '../../http/idempotency.js';
import { refuseUnusableSecret } from '../../system/secret-form.js';
import { shellWord } from '../../system/shell-words.js';
import { changedIn } from '../changed-in.js';
import {
  confirmDestructive,
  examples,
  idempotencyKeyFlag,
  type MakeContext,
  nonEmpty,
  tenantLabel,
} from '../kit.js';
import {
  keptUntil,
  rotateOnce,
  rotationSecretFlags,
  sayRotation,
  secretFileFor,
} from '../replayed-creation.js';
import type { SecretDestination } from '../secret-destination.js';
import { clientSecretEvidence } from '../secret-evidence.js';
import { clientSecretDestination, printClientWithSecret } from './create.js';

export interface RotateSecretOptions {
  clientId: string;
  secret: SecretDestination;
  idempotencyKey: string | undefined;
}

export function parseRotateSecret(clientId: unknown, flags: Record<string, unknown>): RotateSecretOptions {
  return {
    clientId: nonEmpty('CLIENT_ID', clientId),
    secret: clientSecretDestination(flags, 'svc oauth rotate-secret'),
    idempotencyKey: idempotencyKeyFlag(flags.idempotencyKey),
  };
}

export async function runRotateSecret(ctx: Context, options: RotateSecretOptions): Promise<void> {
  // The client is read before it is asked about (attack29a F5: the question named only the id
  // given, no name nor tenant, and a client that does not exist was asked about, failing after
  // "y"): its name and tenant, as `oauth delete` asks; a 404 ends it here, nothing asked or sent.
  await confirmDestructive(
    ctx,
    async () => {
      const client = await (await ctx.platform()).oauth.clients.get(options.clientId);
      return `Rotate the secret of OAuth client ${client.name} (${client.client_id}) in ${await tenantLabel(ctx)}? The current secret stops working at once.`;
    },
    'rotating a client secret',
  );
  const what = `OAuth client ${options.clientId}`;
  const command = (rest: string) =>
    svcCommand(ctx.settings(), `oauth rotate-secret ${shellWord(options.clientId)}${rest} --yes`);
  const { to, next } = rotationSecretFlags(options.secret.file);
  const key = options.idempotencyKey ?? newIdempotencyKey();
  const secretLost = (id: string): [what: string, remedy: string] => [
    `OAuth client ${id}`,
    `rotate again with: ${svcCommand(ctx.settings(), `oauth rotate-secret ${shellWord(id)} --secret-file PATH --yes`)}`,
  ];
  const file = await secretFileFor(
    ctx,
    options.secret.file,
    key,
    `a new secret of ${what} (its old secret stopped working then)`,
    `see whether it was rotated then with: ${svcCommand(ctx.settings(), `oauth get ${shellWord(options.clientId)}`)}`,
    command(` --idempotency-key ${shellWord(key)}${to}`),
  );
  let data: OAuthClientWithSecret;
  let replayed = false;
  let unsure: string | undefined;
  try {
    const platform = await ctx.platform();
    const rotation = await rotateOnce(
      options.idempotencyKey,
      {
        what,
        old: `${what}'s current secret may already have stopped working`,
        rerun: (key) => command(` --idempotency-key ${shellWord(key)}${to}`),
        again: command(to),
        againWritten: command(next),
        stillCurrent: clientSecretEvidence,
      },
      (idempotencyKey) => platform.oauth.clients.rotateSecret(options.clientId, { idempotencyKey }),
      () => platform.oauth.clients.get(options.clientId),
      key,
    );
    data = rotation.data;
    replayed = rotation.byEarlierRun;
    unsure = rotation.unsure;
    const [lost, remedy] = secretLost(data.client_id);
    const made = `${lost}'s secret was rotated (its old secret stopped working)`;
    if (!file) refuseUnusableSecret(data.client_secret, 'client_secret', made, remedy);
    else {
      await file.write(data.client_secret, 'client_secret', {
        made,
        what: 'the new secret',
        remedy,
        until: keptUntil(data.secret_rotated_at),
        anew: 'a new rotation, which ends the secret in use then',
      });
    }
  } catch (error) {
    await file?.discard();
    throw error;
  }
  const shown = sayRotation(ctx, what, { byEarlierRun: replayed, unsure }, data);
  const [, remedy] = secretLost(data.client_id);
  await printClientWithSecret(
    ctx,
    shown,
    options.secret.file,
    [`OAuth client ${data.client_id}'s new secret`, remedy],
    // The ✓ line of every change; none for a rotation an earlier run made (its note says so).
    replayed
      ? undefined
      : `rotated the secret of OAuth client ${data.name} (${data.client_id})${changedIn(ctx.settings())}`,
  );
}

export function rotateSecretCommand(make: MakeContext): Command {
  return new Command('rotate-secret')
    .summary("Replace an OAuth client's secret (tenant_admin)")
    .description(
      "Replace an OAuth client's secret: the new one is returned once, --secret-file writes it to a new\n" +
        'file (mode 0600), --show-secret prints it; one is required, checked before anything is asked or\n' +
        'sent. The old one stops working at once, and tokens already issued stay valid. Asks for\n' +
        'confirmation on a terminal; pass --yes otherwise. (The reference shows secret_rotated_at but\n' +
        'not this operation; the sandbox serves POST /v1/oauth/clients/{client_id}/rotate-secret.)\n' +
        "It takes oauth_client.manage and the permissions the client's scopes reach (admin: every\n" +
        'permission of the tenant), all held by you in the tenant without an end date (as issuing an API\n' +
        "key or rotating a webhook's secret): whoever holds the secret gets the tokens users\n" +
        'approve for it, also after a just-in-time grant of yours ends (403 insufficient_permission\n' +
        'otherwise, exit 4, naming until when you hold them). Only with your own login: with an API key or\n' +
        "a third-party client's token, 403 user_required (exit 4). When the answer is lost (Ctrl-C, a dropped\n" +
        'connection) or unreadable (a 2xx that is not JSON), the error names the idempotency key: run again with --idempotency-key KEY (within 24\n' +
        'hours) to get the same new secret without rotating again; rotated again since: exit 6, not\n' +
        "written; another secret in the same second (the client's fingerprint: secret_sha256_prefix,\n" +
        'else secret_last4), or a read that does not show the rotation yet: written, with a warning that\n' +
        'it may be replaced, never withheld. A server that gives neither (the reference gives none): a\n' +
        'stored answer in the same second\n' +
        'as the client now is written, with a warning that a rotation in that second cannot be ruled out\n' +
        '(in --json: "secret_may_be_replaced": true); a rotation this command made itself carries no\n' +
        'such doubt: one after the client as svc read it just before the request (with a key), or one\n' +
        'the server marks as no stored answer (Idempotent-Replayed: false).',
    )
    .argument('<client-id>', 'the client')
    .addOption(new Option('--secret-file <path>', 'write the new secret to this new file (mode 0600)'))
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
        'svc oauth rotate-secret cli_0123 --secret-file new.secret --yes',
        'rotate, keep the secret in a file',
      ]),
    )
    .action(async (clientId: string, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseRotateSecret(clientId, flags);
      await runRotateSecret(await make(cmd), options);
    });
}
