// Past 300 lines: the words of every creation and rotation under an idempotency key (a lost
// answer, a stored one outlived, an interrupted check, a read that lags) belong together; each verb
// checks its object.
/**
 * Creations under an idempotency key: the platform answers a repeat of the key with its stored
 * answer (Idempotent-Replayed), which is the day of the creation's, and a lost answer can be had
 * again only with the key. Most carry a one-time secret (an OAuth client, a webhook, an API key);
 * a record carries its key in its own data. Each verb checks what became of the object itself;
 * the words are here.
 */
import { join } from 'node:path';
import { spreadAsTheyCame, withNumbersOf } from '../api/numbers-as-they-came.js';
import { clearlyAfter, serverTime } from '../api/time.js';
import { stateDir } from '../config/paths.js';
import { heirOf } from '../config/store-directory.js';
import type { Context } from '../context.js';
import { InterruptedError, SvcError } from '../errors.js';
import { NotFoundError, OutcomeUnknownError } from '../http/errors.js';
import { newIdempotencyKey } from '../http/idempotency.js';
import type { ApiPromise } from '../platform/api-promise.js';
import { AcceptedUnreadError } from '../platform/errors.js';
import { markedFresh, type SecretEvidence, storedSecretNow } from '../platform/stored-answer.js';
import { LAGGING_READ_WAITS_MS, readThroughLag } from '../system/lagging-reads.js';
import { SecretFile, type SecretIntent } from '../system/secret-file.js';
import { pathWord, shellWord } from '../system/shell-words.js';

/**
 * What a --secret-file waits for, recorded while its request is in flight (SecretFile): a run
 * killed then leaves the file empty, and the next run names `made`, `find` and the key.
 */
export function secretIntent(
  ctx: Context,
  key: string,
  made: string,
  find: string,
  rerun = `the same command with --idempotency-key ${shellWord(key)}`,
): SecretIntent {
  return { records: join(stateDir(ctx.env), 'secret-files'), key, made, find, rerun, heir: heirOf };
}

/**
 * The `--secret-file` a create or rotate writes, made (0600, new) before the request with the
 * record of what it waits for (secretIntent); none when the secret goes to stdout.
 */
export function secretFileFor(
  ctx: Context,
  path: string | undefined,
  key: string,
  made: string,
  find: string,
  rerun?: string,
): Promise<SecretFile | undefined> {
  return path
    ? heldUntilClose(ctx, SecretFile.create(path, '--secret-file', secretIntent(ctx, key, made, find, rerun)))
    : Promise.resolve(undefined);
}

/**
 * A secret file the command holds until it ends: one it neither wrote nor discarded (an error path
 * that forgot it) is discarded then (ctx.atClose), as after a failed request, never left waited on
 * for as long as the process runs (fix-files18 #5). After a write, discard does nothing.
 */
export async function heldUntilClose(ctx: Context, made: Promise<SecretFile>): Promise<SecretFile> {
  const file = await made;
  ctx.atClose(() => file.discard());
  return file;
}

/** How long the platform keeps a key's answer, the secret with it (README, "Idempotency"). */
export const KEY_KEPT = '24 hours';
const KEY_KEPT_MS = 24 * 3600 * 1000;

/**
 * What was created, for the words: `OAuth client cli_…`, `client`, `secret`; a record has no
 * secret, and its key is in its data (`anew` says how to get a new one).
 */
export interface Created {
  what: string;
  noun: string;
  secret?: string;
  anew?: string;
  /** How the same key is sent again (default: the same --idempotency-key). */
  again?: string;
  /** Whose the answer is svc cannot tell (Creation.unmarked): goneSince says both readings. */
  unmarked?: EitherRun;
}

/**
 * Why svc cannot tell whether an answer under the user's own key is this run's creation or an
 * earlier run's: the server marks no answer as stored ('unmarked'), or it marked this one, which
 * answered a retry after this run's own answer was lost ('after-lost-answer': the stored answer
 * to this run's first attempt, or to an earlier run's with that key, review19b F9). false: svc can
 * tell. Either way the object may be this run's, just made: its read is retried while it may lag.
 */
export type EitherRun = false | 'unmarked' | 'after-lost-answer';

/** How a re-run sends the same key again, and what its answer holds (a one-time secret). */
export interface Rerun {
  with: (key: string) => string;
  included: string | null;
  /** The whole hint, for a request that is no creation (a rotation). */
  hint?: (key: string) => string;
}

export interface Creation<T> {
  data: T;
  key: string;
  /**
   * The platform's stored answer (Idempotent-Replayed), and not to a retry of this run after a lost
   * answer: an earlier run made it.
   */
  byEarlierRun: boolean;
  /**
   * A stored answer that may be older than this run: an earlier run's, or one to a retry after a
   * lost answer under the user's own key (which an earlier run may have used). A key svc chose
   * was never sent before this run: its stored answer is this run's own creation.
   */
  mayBeStale: boolean;
  /**
   * The user's key, and an answer that may be this run's or an earlier run's (EitherRun): one no
   * header marks as stored (a fresh creation, or the stored answer of a server that does not mark
   * them: the reference names no header), or the marked answer to a retry after this run's answer
   * was lost — checked as a stale one would be, its read retried while it may lag, and said with
   * both readings when gone or rotated since (never by two clocks).
   */
  unmarked: EitherRun;
  /**
   * The server marks this answer as no stored one (markedFresh: `Idempotent-Replayed: false`): the
   * request's own, fresh answer, whatever the key (review29b M4). Only a rotation takes it as its
   * own by this; a creation's checks go by `unmarked` still.
   */
  markedFresh?: boolean;
}

/**
 * Sends a creation under `given` (--idempotency-key) or a key chosen here, not by the HTTP client,
 * so that an answer lost on every attempt names it: re-run with it, the platform answers with
 * the same creation, secret included, instead of making a second one.
 */
export async function createOnce<T>(
  given: string | undefined,
  noun: string,
  request: (key: string) => ApiPromise<T>,
  rerun: Rerun = {
    with: (key) => `--idempotency-key ${shellWord(key)}`,
    included: noun === 'API key' ? 'the key' : 'secret',
  },
  // The key svc chose already when it had to name it first (a --secret-file's record); a key svc
  // chose was never sent before this run, so its stored answer is this run's own (mayBeStale).
  key = given ?? newIdempotencyKey(),
): Promise<Creation<T>> {
  try {
    const { data, response } = await request(key).withResponse();
    // Only the server's word makes an answer an earlier run's: the object's time against the
    // server's Date is two clocks (a gateway's ahead, a time without a zone), which made this run's
    // creation "an earlier run's … deleted since" of a read that lagged (review18b R1, review19 F7).
    // An unmarked answer under the user's own key is checked all the same, said with both readings.
    const byEarlierRun = response.replayed && !response.afterLostAnswer;
    return {
      data,
      key,
      byEarlierRun,
      markedFresh: markedFresh(response.headers),
      mayBeStale: byEarlierRun || given !== undefined,
      unmarked:
        given === undefined
          ? false
          : !response.replayed
            ? 'unmarked'
            : response.afterLostAnswer
              ? 'after-lost-answer'
              : false,
    };
  } catch (error) {
    // An unknown outcome however it became one (every answer lost, or a 2xx svc cannot read: a
    // proxy's "OK", an empty 201) names the key: the one way to the secret the platform made, or
    // the key svc put in a record's data, which the user cannot know (review21 F4).
    if (!(error instanceof OutcomeUnknownError || (error instanceof AcceptedUnreadError && !error.done))) {
      throw error;
    }
    if (rerun.hint) throw error.withHint(rerun.hint(key));
    const included = rerun.included ? `, ${rerun.included} included,` : '';
    throw error.withHint(
      `re-run with ${rerun.with(key)} to get the same answer${included} without creating a second ${noun} (the platform keeps it for ${KEY_KEPT})`,
    );
  }
}

/** Whose an answer svc cannot tell is: the server did not mark it as a stored one. */
const BY_EITHER_RUN = 'made by this run or by an earlier one with that key';

/** Why svc cannot tell (EitherRun), after BY_EITHER_RUN. */
const whyEither = (why: EitherRun) =>
  why === 'after-lost-answer'
    ? "this run's first answer was lost, and the stored answer its retry got does not say whose it is"
    : 'the server does not say';

/**
 * The object of a replayed creation is gone (deleted, revoked) since: its secret is dead. Exit 5.
 * `notShown`: what is known is only that the reads (readThroughLag's) did not find it; when the
 * answer may be this run's (unmarked) that is said first, "deleted" being only one reading of it
 * (review19d F10).
 */
export function goneSince(
  created: Created,
  key: string,
  became: string,
  cause?: unknown,
  notShown = false,
): SvcError {
  const dead = created.secret ? `, whose ${created.secret} no longer works` : '';
  const withheld = created.secret ? `; svc neither prints nor writes its ${created.secret}` : '';
  const stored =
    "that answer was the platform's stored one, which may be this run's creation or an earlier run's with that key";
  const reads = LAGGING_READ_WAITS_MS.length + 1;
  const message =
    created.unmarked === 'after-lost-answer' && notShown
      ? `${created.what}, which the platform answered with under idempotency key ${key} after this run's first answer was lost, is not found after ${reads} reads: either it was deleted since or the server is still slow to show it (${stored}: svc cannot tell)${withheld}`
      : created.unmarked === 'after-lost-answer'
        ? `${created.what}, which the platform answered with under idempotency key ${key} after this run's first answer was lost, is ${became} now: ${stored} (svc cannot tell), and it has been ${became} since it was made${withheld}`
        : created.unmarked && notShown
          ? `${created.what}, which the platform answered with under idempotency key ${key}, is not found after ${reads} reads: the server does not say which answers are stored ones, so this is most likely an earlier run's stored answer and the ${created.noun} ${became} since, or the server is still slow to show it${withheld}`
          : created.unmarked
            ? `${created.what}, which the platform answered with under idempotency key ${key}, is ${became} now: the server does not say which answers are stored ones, so this is most likely an earlier run's stored answer and the ${created.noun} has been ${became} since${withheld}`
            : `${created.what} was created by an earlier run with idempotency key ${key} and has been ${became} since; the platform answered with that run's stored answer${dead}`;
  return new SvcError('not_found', message, {
    code: `${created.noun.replace(/\W+/g, '_').toLowerCase()}_${became}`,
    hint: `${
      // Unmarked, "gone" may be a read that lags behind this very creation (review18b R2): the
      // same key gets its answer, secret included, again for the platform's 24 hours.
      // A revocation read is no lag: after a lost answer, only "not shown" may be one.
      created.unmarked && (created.unmarked === 'unmarked' || notShown)
        ? `if the server is only slow to show ${/^[aeiou]/i.test(created.noun) ? 'an' : 'a'} ${created.noun} this command made, the same command again (${created.again ?? 'the same --idempotency-key'}) gets it${created.secret ? ` and its ${created.secret}` : ''}; otherwise, `
        : ''
    }${created.anew ?? `to make a new ${created.noun}, run the command without --idempotency-key (or with a new key)`}`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The secret of a replayed creation was rotated since: neither printed nor written. Exit 6. */
export function rotatedSince(created: Created, key: string, at: string, remedy: string): SvcError {
  const message = created.unmarked
    ? `${created.what}, which the platform answered with under idempotency key ${key} (${BY_EITHER_RUN}: ${whyEither(created.unmarked)}), has had its ${created.secret} rotated since (${at}): the ${created.secret} in that answer no longer works, so svc neither prints nor writes it`
    : `${created.what} was created by an earlier run with idempotency key ${key}, and its ${created.secret} was rotated since (${at}): the ${created.secret} in the platform's stored answer no longer works, so svc neither prints nor writes it`;
  return new SvcError('conflict', message, {
    code: 'secret_rotated',
    hint: `the ${created.secret} of the rotation is the ${created.noun}'s; if it is lost, get a new one with: ${remedy}`,
  });
}

/**
 * Ctrl-C while checking what a stored answer names (review16 R8): the object exists, and nothing
 * new was made; its secret is in hand but not checked (it may have been rotated since), so it is
 * neither written nor printed, and the same command gets it again. Exit 130.
 */
export function interruptedCheck(
  what: string,
  key: string,
  secret: string | undefined,
  rerun: string,
  stands = 'it exists',
  answeredAt?: string | null,
  /** The answer may be this run's creation (Creation.unmarked). */
  unmarked: EitherRun = false,
): InterruptedError {
  const held = secret ? `, and its ${secret} was neither written nor printed: it was not checked yet` : '';
  const named = unmarked
    ? `which the platform answered with under idempotency key ${key} (${BY_EITHER_RUN}: ${whyEither(unmarked)}): ${stands}`
    : `which the platform's stored answer to idempotency key ${key} names: ${stands}, nothing new was made`;
  return new InterruptedError(`interrupted while checking ${what}, ${named}${held}`, {
    hint: `to get it, run ${rerun} ${keptUntil(answeredAt)}: the platform answers with the same ${secret ?? 'answer'}`,
  });
}

/**
 * Until when the platform keeps a stored answer made at `answeredAt` (its object's created_at, a
 * rotation's secret_rotated_at): 24 hours on less a minute (the key was stored just before its
 * object was made), rounded down to the minute, on the platform's clock
 * (review16e E7: "within 24 hours" was said of an answer nearly 24 hours old). Unknown: "within".
 */
export function keptUntil(answeredAt: string | null | undefined): string {
  const at = answeredAt ? serverTime(answeredAt) : Number.NaN;
  if (Number.isNaN(at)) return `within ${KEY_KEPT}`;
  const until = new Date(at + KEY_KEPT_MS - 60_000).toISOString().slice(0, 16);
  return `before ${until}Z (the platform's clock: it keeps the answer ${KEY_KEPT} from ${answeredAt})`;
}

/**
 * Runs a check of what a stored answer names; Ctrl-C during it is said by interruptedCheck, not
 * as a request cancelled as if nothing had happened.
 */
export async function checking<T>(check: () => Promise<T>, interrupted: () => InterruptedError): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof SvcError && error.category === 'interrupted') throw interrupted();
    throw error;
  }
}

/**
 * What stands when Ctrl-C cuts readThroughLag's waits after reads that did not find the object:
 * not that it exists (review19b F3), but that it was not seen yet.
 */
export const NOT_SHOWN_YET =
  "not found yet: the server answered every read so far that it is not there, and svc was waiting for it to show it (a server's reads may lag behind its writes; or it was deleted since)";

/**
 * The object a replayed creation (Creation.mayBeStale) made, as it is now: `read` gives it, or
 * undefined (or a 404) while it is not shown; read again while a read may lag behind this run's
 * own creation (readThroughLag, when `created.unmarked`); Ctrl-C during the reads says what was
 * made and the key to re-run with (interruptedCheck); still not shown: gone since (exit 5).
 */
export async function madeNow<T>(
  ctx: Pick<Context, 'clock' | 'signal'>,
  created: Created,
  key: string,
  answeredAt: string | undefined,
  read: () => Promise<T | undefined>,
): Promise<T> {
  let notFound: NotFoundError | undefined;
  let shown = true;
  const readOnce = () =>
    read().then(
      (found) => {
        shown = found !== undefined;
        return found;
      },
      (error: unknown) => {
        if (!(error instanceof NotFoundError)) throw error;
        notFound = error;
        shown = false;
        return undefined;
      },
    );
  const now = await checking(
    () => readThroughLag(ctx, Boolean(created.unmarked), readOnce),
    () =>
      interruptedCheck(
        created.what,
        key,
        created.secret,
        'the same command again',
        shown ? undefined : NOT_SHOWN_YET,
        answeredAt,
        created.unmarked,
      ),
  );
  if (now === undefined) throw goneSince(created, key, 'deleted', notFound, true);
  return now;
}

/**
 * The object of a replayed creation with a one-time secret, as it is now (madeNow over `get`),
 * with the stored answer's `kept` fields (the secret, its warning), which a read never shows: its
 * secret rotated since (storedSecretNow, the rotations' rule: a later rotation time, or the
 * `evidence` telling another secret where whole seconds cannot, brief s29 fixrot 2): exit 6, the
 * stale secret neither printed nor written (`remedy` gets a new one). No evidence and a rotation in
 * the creation's second: the time rule's "no later rotation" (a server whose rotation time starts
 * at the creation reads back so on every replay, review19 F4).
 */
export async function asItIsNow<T extends { secret_rotated_at?: string | null; created_at?: string }>(
  ctx: Pick<Context, 'clock' | 'signal'>,
  get: () => Promise<Partial<T>>,
  made: T,
  kept: readonly (keyof T)[],
  created: Created,
  key: string,
  remedy: string,
  evidence?: SecretEvidence,
): Promise<T> {
  const now = await madeNow(ctx, created, key, made.created_at, get);
  const judged = storedSecretNow(made, now, evidence);
  if (judged === 'rotated-since' || judged === 'replaced') {
    throw rotatedSince(created, key, now.secret_rotated_at ?? 'the server does not say when', remedy);
  }
  const keptFields = Object.fromEntries(kept.map((field) => [field, made[field]]));
  return spreadAsTheyCame(made, now, withNumbersOf(made, keptFields)) as unknown as T;
}

/** Said on stderr before a replayed creation's object, shown as it is now. */
export function earlierRunNote(created: Created): string {
  return `${created.what} was already created by an earlier run with this idempotency key: this is the platform's stored answer, with the ${created.noun} as it is now`;
}

export const idempotencyKeyHelp = (noun: string) =>
  `the request's idempotency key (default: a new one); reuse it so a re-run cannot create a second ${noun}`;

/** What a rotation's words name: `OAuth client cli_…`, and the commands that settle it. */
export interface Rotated {
  what: string;
  /** What became of the secret in use when the answer is lost (the old one stops, or signs 24 h more). */
  old: string;
  /** The same rotation again under `key`: the platform answers with its stored answer, new secret included. */
  rerun: (key: string) => string;
  /** A new rotation (a new key). */
  again: string;
  /**
   * A new rotation once this one's secret was written (the warning of a tie): `again` with a new
   * --secret-file path, svc never overwriting a secret file (review28d M2). `again` when absent.
   */
  againWritten?: string;
  /**
   * Evidence beyond the rotation times, for when they cannot tell (the answer's and the read's
   * times one second apart or less, whole seconds): whether the stored answer's secret is still
   * the current one (true), is not (false), or svc cannot tell (undefined); src/commands/secret-evidence.ts.
   */
  stillCurrent?: SecretEvidence;
}

/**
 * Sends a secret's rotation under `given` (--idempotency-key) or a key chosen here, as
 * createOnce does: a lost answer (an interruption, a dropped connection) names the key that
 * gets the new secret back, and says the secret in use may already be replaced (crash14 2).
 * A stored answer that may be older than this run is checked against the object as it is now
 * (`now`): rotated again since, its secret is no longer the current one and is neither printed
 * nor written (exit 6).
 */
export async function rotateOnce<T extends { secret_rotated_at?: string | null }>(
  given: string | undefined,
  rotated: Rotated,
  request: (key: string) => ApiPromise<T>,
  now: () => Promise<{ secret_rotated_at?: string | null }>,
  key = given ?? newIdempotencyKey(),
): Promise<Creation<T> & { unsure?: string }> {
  // Under the user's own key, the object as it was before the request (nothing sent yet): a
  // rotation in the answer clearly after the one it showed was made after this command began, so
  // it is this request's own, or an answer the server marks as fresh is (brief s29 fixrot 3).
  const before = given === undefined ? undefined : await readBefore(now);
  const creation = await createOnce(
    given,
    'rotation',
    request,
    {
      with: () => '',
      included: null,
      hint: (key) =>
        `${rotated.old}; re-run with: ${rotated.rerun(key)} to get the new secret without rotating again (the platform keeps it for ${KEY_KEPT})`,
    },
    key,
  );
  if (!creation.mayBeStale) return creation;
  const current = await checking(now, () =>
    interruptedCheck(
      `the rotation of ${rotated.what}'s secret`,
      creation.key,
      'new secret',
      rotated.rerun(creation.key),
      'it was made',
      creation.data.secret_rotated_at,
    ),
  );
  const rotatedAt = creation.data.secret_rotated_at;
  // Times that cannot tell the answer's rotation from another in the same second (attack28b F2):
  // evidence that can tell decides (the secret's fingerprint, the secrets rotated out then); a
  // server that gives none gets the time rule, and a tie writes the secret with a warning, never
  // withholds it: the answer may be this run's own rotation, whose old secret is dead (review28a H2).
  const judged = storedSecretNow(
    creation.data,
    current,
    rotated.stillCurrent,
    // A stored answer an earlier run made changes nothing: the read before it shows the same.
    creation.byEarlierRun ? undefined : (before as Record<string, unknown> | undefined),
  );
  // A tie the request's own rotation makes carries no more doubt than a rotation without a key
  // (review28d M2). Its time against the command's start was no proof: an unmarked replay of an
  // earlier run's rotation with that key, made in the second this command started (or within the
  // Date header's second of it), was taken as its own, with no warning (brief s29 fixrot 3).
  // An answer the server marks as no stored one is the request's own (review29b M4: the clause
  // `unmarked === false && !byEarlierRun` it replaces holds for no keyed answer).
  const ownRotation = creation.markedFresh === true || rotatedAfterRead(before, rotatedAt);
  if (judged === 'rotated-since') {
    const at = current.secret_rotated_at ?? 'unknown';
    throw new SvcError(
      'conflict',
      creation.byEarlierRun
        ? `the rotation with idempotency key ${creation.key} was made by an earlier run, and ${rotated.what}'s secret was rotated again since (${at}): the secret in the platform's stored answer is not the current one, so svc neither prints nor writes it`
        : ownRotation
          ? `the rotation this command made with idempotency key ${creation.key} is not the latest: ${rotated.what}'s secret was rotated again since (${at}), so the secret in its answer is not the current one, and svc neither prints nor writes it`
          : `the rotation the platform answered with under idempotency key ${creation.key} (${BY_EITHER_RUN}: ${creation.unmarked === 'unmarked' ? 'the server does not say' : 'svc cannot tell'}) is not the latest: ${rotated.what}'s secret was rotated again since (${at}), so the secret in that answer is not the current one, and svc neither prints nor writes it`,
      { code: 'secret_rotated', hint: `get a new one with: ${rotated.again}` },
    );
  }
  // Evidence that tells another secret is no proof the answer's was replaced: a read that lags
  // shows an older one (the old state, or a rotation made before this one), and once the platform
  // rotated, the old secret is dead, so the answer's may be the only working one. It is written
  // with the doubt, never withheld (review18b R6, review28a H2, review29b H1); only a read in the
  // answer's own second that is not the old state says "replaced".
  const again = rotated.againWritten ?? rotated.again;
  if (judged === 'replaced') {
    return {
      ...creation,
      unsure: `${rotated.what}'s secret was rotated again ${current.secret_rotated_at ? `in the same second as this rotation (${current.secret_rotated_at})` : 'since this rotation (the server gives no time)'}, by the server's read, whose fingerprint is not this secret's: this secret may already be replaced (svc cannot tell which rotation came last), so it is given with this warning; if it is refused, get a new one with: ${again}`,
    };
  }
  if (judged === 'lagging') {
    const shows = current.secret_rotated_at
      ? `it shows a rotation at ${current.secret_rotated_at} with another secret`
      : 'it shows no rotation';
    return {
      ...creation,
      unsure: `svc could not check ${rotated.what}'s new secret: the server's read does not show this rotation (${shows}), as a read that lags behind the rotation would; the same command with --idempotency-key ${shellWord(creation.key)} gets this same secret again and checks it again, for ${KEY_KEPT}; if the secret is refused, get a new one with: ${again}`,
    };
  }
  if (judged === 'tie' && rotatedAt && !ownRotation) {
    return {
      ...creation,
      unsure: `${rotated.what}'s secret was rotated at ${rotatedAt}, and svc cannot rule out another rotation in that same second (the platform gives whole seconds, and nothing that tells its secrets apart): if the secret is refused, get a new one with: ${rotated.againWritten ?? rotated.again}`,
    };
  }
  return creation;
}

/**
 * The object as it was before a keyed rotation was sent, or undefined when it could not be read
 * (then nothing is proven by it: a tie warns). Ctrl-C stops the command, nothing sent.
 */
async function readBefore(
  read: () => Promise<{ secret_rotated_at?: string | null }>,
): Promise<{ secret_rotated_at?: string | null } | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof SvcError && error.category === 'interrupted') throw error;
    return undefined;
  }
}

/**
 * Whether a rotation at `rotatedAt` was made after the read `before` (readBefore): that read showed
 * none yet (null), or one clearly before it (clearlyAfter: a later second, whole seconds). A read
 * that gave no time, or none at all, proves nothing.
 */
function rotatedAfterRead(
  before: { secret_rotated_at?: string | null } | undefined,
  rotatedAt: string | null | undefined,
): boolean {
  if (!before || !rotatedAt || before.secret_rotated_at === undefined) return false;
  return before.secret_rotated_at === null || clearlyAfter(rotatedAt, before.secret_rotated_at);
}

/**
 * The secret flag a rotate-secret command given `file` is run again with (`to`: the same key's rerun
 * writes the same file, or shows the secret), and the one of a new rotation once this one's secret
 * was written (`next`: a new file, svc never overwriting a secret file; review28d M2).
 */
export function rotationSecretFlags(file: string | undefined): { to: string; next: string } {
  if (!file) return { to: ' --show-secret', next: ' --show-secret' };
  return { to: ` --secret-file ${pathWord(file)}`, next: ` --secret-file ${pathWord(`${file}.new`)}` };
}

/**
 * What both rotate-secret verbs say beside a rotation's answer (`data`, as it is to be printed), and
 * the one shape both print it in: an earlier run's stored answer with its note on stderr and
 * `"replayed": true` in --json (asReplayed; `webhooks rotate-secret` left it out, brief s29 fixrot
 * 1), and a same-second tie's doubt (`unsure`) as a warning and in --json too
 * (`secret_may_be_replaced`), so a script reading stdout tells it from a current secret.
 */
export function sayRotation<T extends object>(
  ctx: Context,
  what: string,
  rotation: { byEarlierRun: boolean; unsure?: string },
  data: T,
): T & { replayed?: true; secret_may_be_replaced?: true } {
  if (rotation.byEarlierRun && !ctx.out.isMachine)
    ctx.out.info(earlierRotationNote(what, rotation.unsure !== undefined));
  const shown = asReplayed(data, rotation.byEarlierRun);
  if (!rotation.unsure) return shown;
  ctx.out.warn(rotation.unsure);
  return spreadAsTheyCame(shown, { secret_may_be_replaced: true as const }) as T & {
    replayed?: true;
    secret_may_be_replaced: true;
  };
}

/** Said on stderr before a replayed rotation's answer. */
function earlierRotationNote(what: string, unsure = false): string {
  return `${what}'s secret was already rotated by an earlier run with this idempotency key: this is the platform's stored answer${unsure ? '' : ', and its secret is still the current one'}`;
}

/**
 * A created object as `--json` prints it: an earlier run's (the platform's stored answer) carries
 * `"replayed": true`, so a script tells it from a creation with `.replayed`, whatever the noun —
 * webhooks, OAuth clients (created or rotated) and API keys, whose fields are the API's fixed ones.
 * Never a record's: its fields are the user's (one may be named `replayed`, and this would
 * overwrite it), so `records create` says it on stderr only (README, attack26a F6).
 */
export function asReplayed<T extends object>(data: T, byEarlierRun: boolean): T & { replayed?: true } {
  return byEarlierRun
    ? (spreadAsTheyCame(data, { replayed: true as const }) as T & { replayed: true })
    : data;
}
