import { credentialFromTokens, type TokenSet } from '../../auth/token-endpoint.js';
import type { Context } from '../../context.js';
import { ClosedPipeError, StdoutClosedError, StdoutFailedError, type SvcError } from '../../errors.js';
import { endUnheldSession } from '../browser-login.js';

/** Waits for a print; a closed (or failed) stdout is returned, not thrown, so the command can end what it must first. */
export async function unlessClosed(print: Promise<void>): Promise<ClosedPipeError | undefined> {
  try {
    await print;
    return undefined;
  } catch (error) {
    if (error instanceof ClosedPipeError) return error;
    throw error;
  }
}

export interface UnprintedTokens {
  tokens: TokenSet;
  tokenUrl: string;
  requestedScope: string | undefined;
  clientId: string;
  clientSecret: string | undefined;
  /** The profile the tokens were stored in (`oauth authorize --save`); undefined: stored nowhere. */
  storedIn: string | undefined;
  /** Another way to keep them, for the hint: `--save to keep them in the profile`. */
  orKeep?: string;
  /** A refresh that returned no new refresh token: the one given still holds the session. */
  sessionHeld?: boolean;
}

/**
 * What `oauth authorize` and `oauth token` end with when stdout closed (or failed) before the
 * tokens they obtained were printed. Stored, they are in the profile. Otherwise the output was
 * their only copy, so svc revokes the session they open: no live credential is left that nobody
 * holds (a refresh that gave no new refresh token leaves the caller's own). Exit 141 (1 for a
 * failed write), never 0, never a token on stderr.
 */
export async function tokensUnprinted(
  ctx: Context,
  pipe: ClosedPipeError,
  lost: UnprintedTokens,
): Promise<SvcError> {
  const what =
    pipe.failure === undefined
      ? 'stdout closed before the tokens were printed'
      : `cannot write to stdout (${pipe.failure}), so the tokens were not printed`;
  const make = (message: string, hint: string) =>
    pipe.failure === undefined
      ? new StdoutClosedError(message, { hint })
      : new StdoutFailedError(message, { hint });
  if (lost.storedIn !== undefined) {
    return make(
      `${what}; they are stored in profile "${lost.storedIn}"`,
      'svc uses them from there; `svc auth status` shows the login',
    );
  }
  const again = 'run the command again with a stdout that stays open (e.g. > tokens.json)';
  if (lost.sessionHeld) {
    return make(
      `${what}, their only copy: the access token stays valid until it expires; the refresh token given still holds the session`,
      again,
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
  const { said: ended } = await endUnheldSession(ctx, credential);
  return make(
    `${what}, their only copy (nothing was stored); ${ended}`,
    lost.orKeep ? `${again}, or ${lost.orKeep}` : again,
  );
}
