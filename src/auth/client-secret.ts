import { SVC_PUBLIC_CLIENT_ID } from '../api/constants.js';
import { loginCommand } from '../config/settings.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { readSecret, type SecretFlags } from './secret-input.js';

/**
 * One rule for a client's secret at login, `oauth authorize`, refresh and revocation (review28e
 * L5): svc's own client svc-cli is public (PKCE, RFC 8252) and takes no secret from anywhere; the
 * sandbox answers one sent for it with 401 invalid_client. Every other client sends the secret it
 * was given, and its stored login sends that same secret at refresh and revocation. The reference
 * names no per-client authentication method, so svc-cli is the only client svc knows to be public.
 */
export const isPublicClient = (clientId: string | undefined): boolean => clientId === SVC_PUBLIC_CLIENT_ID;

/**
 * The ways in for svc-cli on a server that registered it as confidential (review29a M1): svc sends
 * it no secret, so nothing through svc-cli works there, and the hints that name a secret source
 * (refused by flag, ignored from SVC_CLIENT_SECRET) would send the user round in a loop. `login`
 * is the profile's login command (loginCommand).
 */
export const publicClientWayOut = (clientId: string, login: string): string =>
  `if this server registered ${clientId} as confidential, log in with \`${login} --with-token\`, or pass --client-id of a client it registered for you, with that client's secret`;

/** The secret a stored login sends for its client: none for svc-cli (one an older svc stored). */
export const sentClientSecret = (credential: {
  client_id?: string | undefined;
  client_secret?: string | undefined;
}): string | undefined => (isPublicClient(credential.client_id) ? undefined : credential.client_secret);

/**
 * A secret flag given for svc-cli refused (exit 2); nothing else is read, so a command may call it
 * before it uses the network (`oauth authorize`, ahead of its client lookup: review29a L4).
 * clientSecretFor calls it too.
 */
export function refusePublicClientSecret(ctx: Context, flags: SecretFlags, clientId: string): void {
  if (!isPublicClient(clientId)) return;
  const flag =
    flags.file !== undefined ? '--client-secret-file' : flags.stdin ? '--client-secret-stdin' : undefined;
  if (flag === undefined) return;
  throw new UsageError(
    `${clientId} is svc's own public client and takes no client secret (it proves itself with PKCE; a secret sent for it is refused with invalid_client): leave out ${flag}`,
    { hint: publicClientWayOut(clientId, loginCommand(ctx.settings())) },
  );
}

/**
 * The secret a browser or device login (and `oauth authorize`) sends for `clientId`, which is the
 * one it stores. For svc-cli: a secret given by flag is refused before anything is opened (it
 * would fail after the user consented, and stored, it is never sent); SVC_CLIENT_SECRET (left over
 * from a vendor client, say) is not sent, and a warning says so once (review28c F4).
 */
export async function clientSecretFor(
  ctx: Context,
  flags: SecretFlags,
  clientId: string,
  options: { required?: boolean } = {},
): Promise<string | undefined> {
  if (isPublicClient(clientId)) {
    refusePublicClientSecret(ctx, flags, clientId);
    if (ctx.env.SVC_CLIENT_SECRET) {
      ctx.out.warn(
        `SVC_CLIENT_SECRET is set but not sent: ${clientId} is svc's own public client (it proves itself with PKCE); unset SVC_CLIENT_SECRET unless another client needs it`,
      );
    }
    return undefined;
  }
  return readSecret(ctx, flags, {
    name: 'client-secret',
    label: 'client secret',
    env: 'SVC_CLIENT_SECRET',
    ...(options.required ? { prompt: true, required: true } : {}),
  });
}
