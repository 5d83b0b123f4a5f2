// Past 300 lines: one refresh under the lock, from the proof that its tokens can be kept to what a stop
// (attack21 F6) and a second stop say; the token endpoint itself is in ./token-endpoint.ts.
import { serverTime } from '../api/time.js';
import type { ConfigStore, StoredCredential } from '../config/store.js';
import { AuthError, InterruptedError, SvcError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { OutcomeUnknownError } from '../http/errors.js';
import { finishingSent } from '../http/retry.js';
import { lastWordOnExit } from '../system/interrupts.js';
import { shellWord } from '../system/shell-words.js';
import {
  type AbandonedNote,
  abandonedBy,
  clearAbandoned,
  inFlightRefusal,
  noteAbandoned,
  sentMark,
  sentUnsaved,
  withoutInFlight,
} from './abandoned-refresh.js';
import { sentClientSecret } from './client-secret.js';
import type { CredentialSource, TokenUse } from './credentials.js';
import {
  credentialFromTokens,
  oauthErrorCode,
  requestToken,
  saysUnknownClient,
  tokenRequestFailed,
  unknownClientWords,
} from './token-endpoint.js';

/** Refresh when less than this is left, so a token does not expire between check and use. */
export const REFRESH_MARGIN_MS = 30_000;

export interface RefreshDeps {
  store: ConfigStore;
  profile: string;
  now: () => number;
  api: () => Promise<ApiClient>;
  /** Where the token endpoint is when the credential does not say (older credentials). */
  defaultTokenUrl: () => string;
  /** The login command a hint suggests, keeping -p NAME when it was given: `svc -p f2 login`. */
  loginCommand: () => string;
  /** Tells the user something on stderr (a refreshed login that could not be saved). */
  warn: (message: string) => void;
  /**
   * The command's stop (Ctrl-C, SIGTERM): a refresh not yet sent is not sent; one sent is let
   * finish and its tokens saved before the stop is honoured (stoppedRefresh).
   */
  signal?: AbortSignal;
}

/** Refusals of a refresh that no retry changes: recorded on the credential (refresh_refused). */
const DEFINITE_REFUSALS = new Set(['invalid_grant', 'invalid_client']);

/**
 * What to run to log the profile in again: its own -p NAME, and for a confidential client the
 * client id and where its secret comes from (a stored secret may be the one that was rotated).
 */
export function reloginHint(loginCommand: string, credential: StoredCredential | undefined): string {
  // svc's own public client has no secret to pass (one stored by an older svc is refused now).
  if (credential?.client_id && sentClientSecret(credential)) {
    return (
      `run \`${loginCommand} --client-id ${shellWord(credential.client_id)} --client-secret-file FILE\` again ` +
      '(a confidential client: its secret from --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET)'
    );
  }
  return `run \`${loginCommand}\` again`;
}

/**
 * A refresh refused because the server does not know the profile's client (deleted, the
 * platform's state reset): logging in again through the same client id would wait on a browser
 * page saying "Unknown client" (attack29b F4), so the hint says to check it, in the token
 * endpoint's words, and to log in through a client the server knows.
 */
export function refreshRefusedHint(
  loginCommand: string,
  credential: StoredCredential | undefined,
  refusal: { code: string | undefined; message: string },
): string {
  if (refusal.code !== 'invalid_client' || !saysUnknownClient(refusal.message) || !credential?.client_id)
    return reloginHint(loginCommand, credential);
  return `${unknownClientWords(`the profile's client_id (${credential.client_id})`)}; log in through a client it knows: \`${loginCommand} --client-id CLIENT_ID\` (with its secret for a confidential client: --client-secret-file FILE)`;
}

/** The refusal recorded on a credential, raised again with the words it was first raised with. */
function refusedError(credential: StoredCredential, loginCommand: string): AuthError | undefined {
  // A refresh in flight is no refusal here: its mark (refresh_sent) says more (abandoned-refresh.ts).
  const refused = withoutInFlight(credential).refresh_refused;
  if (!refused) return undefined;
  return new AuthError(refused.message, {
    code: refused.code,
    hint: refreshRefusedHint(loginCommand, credential, refused),
  });
}

export function credentialSecrets(credential: StoredCredential | undefined): string[] {
  if (!credential) return [];
  return [credential.access_token, credential.refresh_token, credential.client_secret].filter(
    (s): s is string => typeof s === 'string' && s !== '',
  );
}

function msLeft(credential: StoredCredential, nowMs: number): number | undefined {
  if (!credential.expires_at) return undefined;
  const at = serverTime(credential.expires_at);
  return Number.isNaN(at) ? undefined : at - nowMs;
}

export function expiresSoon(credential: StoredCredential, nowMs: number): boolean {
  const left = msLeft(credential, nowMs);
  return left !== undefined && left < REFRESH_MARGIN_MS;
}

type Reason = { kind: 'expiry' } | { kind: 'rejected'; token: string };

/**
 * A stop that came before the session was refreshed (its refresh token not spent), or while it was
 * (the refresh let finish: its tokens saved, or not for a full disk): exit 130, nothing more sent.
 */
function stoppedRefresh(
  profile: string,
  when: 'before' | 'saved' | 'unsaved',
  loginCommand?: string,
): InterruptedError {
  const what = `the session of profile "${profile}"`;
  if (when === 'before') {
    return new InterruptedError(
      `interrupted before ${what} was refreshed: its refresh token was not used, so the login is kept; nothing more was sent`,
      { hint: 'run the command again' },
    );
  }
  const kept =
    when === 'saved'
      ? 'and its new tokens were saved, so the login is kept'
      : 'but its new tokens could not be saved (see the warning above), so the login is lost';
  return new InterruptedError(
    `interrupted while ${what} was being refreshed: svc let the refresh finish, ${kept}; nothing more was sent`,
    { hint: when === 'saved' ? 'run the command again' : `run \`${loginCommand}\`` },
  );
}

/**
 * What a second stop says when it ends svc while a refresh it sent is unanswered: the platform may
 * have rotated the refresh token, whose replacement is lost with the answer — and with it the
 * login, of every job that shares this profile.
 */
function abandonedRefresh(profile: string, loginCommand: string): InterruptedError {
  return new InterruptedError(
    `interrupted again, so svc stopped at once while the session of profile "${profile}" was being refreshed, after the request was sent: if the platform refreshed it, its new tokens are lost, and the stored refresh token is spent, so the login may be lost`,
    {
      hint: `run \`${loginCommand}\`: the next svc on this profile does not send that refresh token again (the platform may have spent it, and a second use revokes the login)`,
    },
  );
}

/**
 * The bearer source of a profile logged in with OAuth. `token()` reads the credential file
 * fresh and refreshes shortly before expiry; `renew()` refreshes after a 401. Both refresh under
 * the cross-process lock and re-read the file once they hold it: when another process has
 * refreshed in the meantime, its tokens are used and no request is made. Nothing is ever
 * deleted here, and a write only replaces the credential that was read under the lock.
 */
export function refreshingCredentials(deps: RefreshDeps, initial: StoredCredential): CredentialSource {
  const { store, profile } = deps;
  const seen = new Set(credentialSecrets(initial));
  const remember = (credential: StoredCredential | undefined) => {
    for (const secret of credentialSecrets(credential)) seen.add(secret);
  };
  /**
   * A refresh whose new tokens could not be saved (a full disk): this run goes on with them for
   * as long as the file still holds the credential they replaced, rather than spending that
   * credential's refresh token again (a rotating server has retired it already).
   */
  let unsaved: { replaced: StoredCredential; next: StoredCredential } | undefined;
  const current = (): StoredCredential | undefined => {
    const stored = store.credential(profile);
    if (
      unsaved &&
      stored?.access_token === unsaved.replaced.access_token &&
      stored.refresh_token === unsaved.replaced.refresh_token
    )
      return unsaved.next;
    return stored;
  };

  const refresh = async (reason: Reason, use: TokenUse | undefined): Promise<StoredCredential> => {
    const { withCredentialLock } = await import('./lock.js');
    return withCredentialLock(store, async () => {
      const read = current();
      remember(read);
      if (!read) {
        throw new AuthError(`not logged in: profile "${profile}" has no credential any more`, {
          hint: reloginHint(deps.loginCommand(), undefined),
        });
      }
      if (read.type !== 'oauth') return read;
      // Written back without it (unmarked, refused): an in-flight refusal is no state of its own.
      const stored = withoutInFlight(read);
      const refused = refusedError(stored, deps.loginCommand());
      if (refused) throw refused;
      if (reason.kind === 'expiry' && !expiresSoon(stored, deps.now())) return stored;
      if (reason.kind === 'rejected' && stored.access_token !== reason.token) return stored;
      if (!stored.refresh_token) {
        throw new AuthError(
          `the access token of profile "${profile}" ${reason.kind === 'expiry' ? 'has expired' : 'was rejected'} and there is no refresh token`,
          { code: 'token_expired', hint: reloginHint(deps.loginCommand(), stored) },
        );
      }
      // A refresh of this very token sent by a run stopped at once before its answer (a waiter's case).
      const notRefreshed = (by: AbandonedNote, what: string) =>
        new AuthError(
          `the session of profile "${profile}" is not refreshed: svc process ${by.pid} sent its refresh at ${by.at} and ${what}, so the platform may have spent the stored refresh token; svc does not send it again (a refresh token used twice makes the platform revoke the login)`,
          { code: 'refresh_abandoned', hint: reloginHint(deps.loginCommand(), stored) },
        );
      const abandoned = abandonedBy(store.dir, profile, stored.refresh_token);
      if (abandoned) throw notRefreshed(abandoned, 'was stopped at once before the answer came');
      // One sent by a run that never saved its answer: killed (nothing runs on the way out of a
      // SIGKILL, an OOM kill or a power cut), or unable to write it.
      const unsavedBy = sentUnsaved(stored);
      if (unsavedBy) {
        throw notRefreshed(unsavedBy, 'never saved the answer (it was killed, or could not write it)');
      }
      const url = stored.token_url ?? deps.defaultTokenUrl();
      // Clean-up promised after the stop (use.afterStop) is not held back by it: it needs the refresh,
      // sent under the clean-up's own limit instead (use.signal: listen's put-back, 30 s), which
      // ends its waits and retries as a stop does (a second Ctrl-C waits for the clean-up,
      // src/system/interrupts.ts; review24e L2: it had no limit but --timeout × the retries).
      const stop = use?.afterStop ? (use.signal ?? new AbortController().signal) : deps.signal;
      if (stop?.aborted) throw stoppedRefresh(profile, 'before');
      // The new tokens must be kept: a refresh token spent and then lost is a lost login.
      store.proveWritable(
        ['credentials'],
        (reason) => `the session of profile "${profile}" was not refreshed: ${reason}`,
        (fix) => `its refresh token was not used, so the login is kept: ${fix}, then run the command again`,
        'make room (or make the directory writable)',
      );
      // Marked sent before it is sent (sentMark): the save of its answer takes the mark off; a
      // process killed before that leaves it, and the next run does not send the token again.
      // With it, the refusal an svc older than the mark honours (attack23b F3: it sent the token again).
      const refreshToken = stored.refresh_token;
      const mark = sentMark(refreshToken, deps.now());
      await store
        .setCredential(profile, {
          ...stored,
          refresh_sent: mark,
          refresh_refused: inFlightRefusal(profile, mark),
        })
        .catch((error: unknown) => {
          if (!(error instanceof SvcError)) throw error;
          throw new SvcError(
            'failure',
            `the session of profile "${profile}" was not refreshed: ${error.message}`,
            {
              code: 'config_write',
              hint: 'its refresh token was not used, so the login is kept: make room (or make the directory writable), then run the command again',
              cause: error,
            },
          );
        });
      // Its outcome known here (not sent, refused, failed): the credential as it was, unmarked; a
      // mark that stays (a disk filled since) is said, for the next run will go by it (review23a F8).
      const unmark = () =>
        store.setCredential(profile, stored).catch((error: unknown) => {
          if (!(error instanceof SvcError)) throw error;
          deps.warn(
            `the refresh of profile "${profile}" ended without new tokens, but svc could not take the mark of it off the stored login (${error.message}): the next run will take its refresh token as spent and ask for \`${deps.loginCommand()}\``,
          );
        });
      let tokens: Awaited<ReturnType<typeof requestToken>>;
      // A stop while it is sent lets it finish (within --timeout): the platform may rotate the
      // refresh token as it answers, and a token lost so is every job's login on this profile
      // (attack21 F6). A second stop abandons it, saying so (src/system/interrupts.ts).
      const stopping = () =>
        deps.warn(
          use?.afterStop
            ? `the clean-up's time is up: it stops once the session of profile "${profile}" is refreshed and saved (within --timeout)`
            : `stopping once the session of profile "${profile}" is refreshed and saved; interrupt again to stop now, at the risk of losing the login`,
        );
      stop?.addEventListener('abort', stopping, { once: true });
      const forget = lastWordOnExit(() => {
        noteAbandoned(store.dir, profile, refreshToken, deps.now());
        return abandonedRefresh(profile, deps.loginCommand());
      });
      try {
        // A refresh is svc's own business: the command's result (a closed stdout) ignores it.
        const api = await deps.api();
        // Unlinked from the command's stop once answered: nothing left on it per refresh.
        const requests = stop ? finishingSent(stop) : undefined;
        tokens = await requestToken(
          api,
          url,
          {
            grant_type: 'refresh_token',
            refresh_token: refreshToken,
            client_id: stored.client_id,
            client_secret: sentClientSecret(stored),
          },
          { ownBusiness: true, ...(requests ? { signal: requests.signal } : {}) },
        ).finally(() => requests?.end());
      } catch (error) {
        forget();
        stop?.removeEventListener('abort', stopping);
        // Stopped before it was sent again (a 429's wait): the refresh token was not spent.
        if (error instanceof InterruptedError && !(error instanceof OutcomeUnknownError)) {
          await unmark();
          throw stoppedRefresh(profile, 'before');
        }
        const code = oauthErrorCode(error);
        if (code !== undefined && DEFINITE_REFUSALS.has(code)) {
          // Before giving up, look again: another writer (an older svc that takes no lock) may have
          // stored new tokens meanwhile, which the refusal below would otherwise be recorded over.
          const again = store.credential(profile);
          if (
            again &&
            (again.refresh_token !== stored.refresh_token || again.access_token !== stored.access_token)
          ) {
            remember(again);
            return again;
          }
        }
        // The hint is for an answer (a refusal: log in again) or a lost one. A failure with no
        // answer (a ConnectionError: refused, a proxy's refusal, a certificate, a connect timeout)
        // is left as it is, with its own network hint: no login is asked for (review24c L2).
        const failure = tokenRequestFailed(
          `the session of profile "${profile}" could not be refreshed`,
          error,
          [...seen],
          error instanceof OutcomeUnknownError
            ? `the command itself was not sent; run it again: if the platform did refresh the session, the new tokens were lost with its answer, and svc will say so and ask for \`${deps.loginCommand()}\``
            : refreshRefusedHint(deps.loginCommand(), stored, {
                code,
                message: error instanceof Error ? error.message : String(error),
              }),
        );
        if (failure instanceof AuthError && code && DEFINITE_REFUSALS.has(code)) {
          // Recorded, not deleted (the mark taken off by the same write): `auth token` and `auth
          // status` then say the same, and a new login clears it. Unrecorded on a full disk: the
          // refusal is still what this run reports.
          await store
            .setCredential(profile, {
              ...stored,
              refresh_refused: { code, message: failure.message, at: new Date(deps.now()).toISOString() },
            })
            .catch((error: unknown) => {
              if (!(error instanceof SvcError)) throw error;
            });
        } else await unmark();
        throw failure;
      }
      // The answer made a credential and saved under the same guard: whatever throws, the run's
      // exit handler and the stop's listener go (review23a F8); the mark stays, the token spent.
      let next: StoredCredential | undefined;
      try {
        next = credentialFromTokens(
          tokens,
          {
            clientId: stored.client_id ?? '',
            clientSecret: stored.client_secret,
            tokenUrl: url,
            previous: stored,
          },
          deps.now(),
        );
        remember(next);
        await store.setCredential(profile, next);
        clearAbandoned(store.dir, profile);
      } catch (error) {
        if (next === undefined || !(error instanceof SvcError)) throw error;
        unsaved = { replaced: stored, next };
        deps.warn(
          `the refreshed login of profile "${profile}" could not be saved (${error.message}); this command goes on with it, but the next one will need \`${deps.loginCommand()}\``,
        );
      } finally {
        forget();
        stop?.removeEventListener('abort', stopping);
      }
      // The stop is honoured now that the new tokens are kept: nothing more is sent.
      if (stop?.aborted) {
        throw stoppedRefresh(profile, unsaved?.next === next ? 'unsaved' : 'saved', deps.loginCommand());
      }
      return next;
    });
  };

  return {
    origin: `profile "${profile}"`,
    async token(_target, use) {
      const stored = current();
      remember(stored);
      if (!stored) return undefined;
      if (stored.type === 'oauth') {
        // The server refused this session's refresh: its access token is not handed out either.
        const refused = refusedError(stored, deps.loginCommand());
        if (refused) throw refused;
      }
      if (stored.type !== 'oauth' || !expiresSoon(stored, deps.now())) return stored.access_token;
      if (!stored.refresh_token) {
        if ((msLeft(stored, deps.now()) ?? 1) > 0) return stored.access_token;
        throw new AuthError(
          `the access token of profile "${profile}" has expired and there is no refresh token`,
          {
            code: 'token_expired',
            hint: reloginHint(deps.loginCommand(), stored),
          },
        );
      }
      return (await refresh({ kind: 'expiry' }, use)).access_token;
    },
    async renew(rejected, use) {
      return (await refresh({ kind: 'rejected', token: rejected }, use)).access_token;
    },
    secrets: () => [...seen],
  };
}
