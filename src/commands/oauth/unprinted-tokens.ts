import { OAUTH_PATHS } from '../../api/constants.js';
import { credentialFromTokens, type TokenSet } from '../../auth/token-endpoint.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { ClosedPipeError, type SvcError, unprintedError } from '../../errors.js';
import { endUnheldSession } from '../browser-login.js';

/** A print of tokens that stdout did not take whole. */
export interface CutPrint {
  pipe: ClosedPipeError;
  /**
   * stdout took some of it before it closed (the first line of `| head -1`, which holds the access
   * token): the reader may hold the tokens, so their session is not svc's to end.
   */
  began: boolean;
}

/**
 * Runs a print whose every write waits until stdout took it (`taken`); a closed (or failed)
 * stdout is returned, not thrown, so the command can end what it must first, with whether any of
 * it had reached stdout by then.
 */
export async function unlessClosed(ctx: Context, print: () => Promise<void>): Promise<CutPrint | undefined> {
  const before = ctx.out.stdoutTook;
  try {
    await print();
    return undefined;
  } catch (error) {
    if (error instanceof ClosedPipeError) return { pipe: error, began: ctx.out.stdoutTook > before };
    throw error;
  }
}

export interface UnprintedTokens {
  tokens: TokenSet;
  tokenUrl: string;
  requestedScope: string | undefined;
  clientId: string;
  clientSecret: string | undefined;
  /** The client secret as a printed command reads it again (secretShellText); undefined: it cannot. */
  clientSecretText?: string | undefined;
  /** The profile the tokens were stored in (`oauth authorize --save`); undefined: stored nowhere. */
  storedIn: string | undefined;
  /** Another way to keep them, for the hint: `--save to keep them in the profile`. */
  orKeep?: string;
  /** A refresh grant: the session was the caller's before this command (see sessionHeld). */
  refreshed?: boolean;
  /** A refresh that returned no new refresh token (none, or the one given): the caller's still holds the session. */
  sessionHeld?: boolean;
}

/**
 * What `oauth authorize` and `oauth token` end with when stdout closed (or failed) before the
 * tokens they obtained were printed whole. Stored, they are in the profile. When stdout took
 * some of them (`| head -1` took the access token line), the reader may hold them: svc ends
 * nothing and says how to end the session with a token the reader kept. When nothing reached
 * stdout, the output was their only copy, so svc revokes the session they open: no live
 * credential is left that nobody holds — but never a session the caller already held (a refresh
 * that gave no new refresh token, or the same one). Exit 141 (1 for a failed write), never 0,
 * never a token on stderr.
 */
export async function tokensUnprinted(ctx: Context, cut: CutPrint, lost: UnprintedTokens): Promise<SvcError> {
  const { pipe, began } = cut;
  const closed = pipe.failure === undefined ? 'stdout closed' : `cannot write to stdout (${pipe.failure})`;
  const what = began
    ? `${closed} after the tokens began to print`
    : pipe.failure === undefined
      ? 'stdout closed before the tokens were printed'
      : `${closed}, so the tokens were not printed`;
  const make = (message: string, hint: string) => unprintedError(pipe.failure, message, hint);
  if (lost.storedIn !== undefined) {
    return make(
      `${what}; they are stored in profile "${lost.storedIn}"`,
      `svc uses them from there; \`${svcCommand(ctx.settings(), 'auth status')}\` shows the login`,
    );
  }
  const again = 'run the command again with a stdout that stays open (e.g. > tokens.json)';
  if (lost.sessionHeld) {
    return make(
      `${what}${began ? '' : ', their only copy'}: the access token stays valid until it expires; the refresh token given still holds the session`,
      again,
    );
  }
  if (began) {
    const revoke = svcCommand(
      ctx.settings(),
      `api POST ${OAUTH_PATHS.revoke} -H 'Content-Type: application/x-www-form-urlencoded' --input -`,
    );
    // The secret as the user gave it: its file, its variable, or (stdin, a prompt) a placeholder.
    const secret = lost.clientSecret === undefined ? undefined : (lost.clientSecretText ?? 'CLIENT_SECRET');
    const took =
      secret === 'CLIENT_SECRET'
        ? 'a token it took (TOKEN) and the client secret (CLIENT_SECRET)'
        : 'a token it took';
    return make(
      `${what}, so svc did not revoke their session: your reader may hold them`,
      `if your reader did not keep them, end that session with ${took}: printf 'token=%s&client_id=${lost.clientId}${secret === undefined ? '' : '&client_secret=%s'}' TOKEN${secret === undefined ? '' : ` ${secret}`} | ${revoke} (a reader that took none leaves it valid until its tokens expire); or ${again}`,
    );
  }
  const credential = credentialFromTokens(
    lost.tokens,
    {
      clientId: lost.clientId,
      clientSecret: lost.clientSecret,
      tokenUrl: lost.tokenUrl,
      requestedScope: lost.requestedScope,
    },
    ctx.clock.now(),
  );
  const { said, revoked } = await endUnheldSession(ctx, credential);
  // A rotated refresh: the one sent no longer works, but access tokens issued before in the same
  // session (a profile's, another process's) end with it: said, not hidden behind "nothing holds it".
  const ended =
    lost.refreshed && revoked
      ? `${said} (the refresh token sent was replaced by the new one; access tokens issued before in that session, wherever they are kept, stop working too)`
      : said;
  return make(
    `${what}, their only copy (nothing was stored); ${ended}`,
    lost.orKeep ? `${again}, or ${lost.orKeep}` : again,
  );
}
