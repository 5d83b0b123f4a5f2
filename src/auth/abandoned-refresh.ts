import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isoSeconds } from '../api/time.js';
import type { StoredCredential } from '../config/store.js';
import { heirOf } from '../config/store-directory.js';
import { writeOwnFile } from '../system/output-file.js';

/**
 * A refresh abandoned by a second stop after it was sent (auth/refresh.ts): the platform may have
 * rotated the refresh token as it answered, and the answer with the new one is lost. Jobs waiting
 * on the credentials lock (other runs on the profile) took it next and sent the stored refresh
 * token again: a refresh token used twice, which makes the platform revoke the whole login, and
 * which its security team sees as a stolen token (brief locks22 #4). So the stopping process, still
 * holding the lock, writes down which refresh token it sent (its SHA-256, never the token) in
 * `refresh-abandoned.json` of the config directory, and the next holder does not send that token
 * (abandonedBy). A new login stores another token, which no note matches; a refresh saved clears
 * its profile's note.
 */
export interface AbandonedNote {
  refresh_token_sha256: string;
  pid: number;
  at: string;
}

const notesPath = (dir: string) => join(dir, 'refresh-abandoned.json');
const digest = (token: string) => createHash('sha256').update(token).digest('hex');

function readNotes(dir: string): Record<string, AbandonedNote> {
  try {
    const notes = JSON.parse(readFileSync(notesPath(dir), 'utf8')) as unknown;
    return notes !== null && typeof notes === 'object' && !Array.isArray(notes)
      ? (notes as Record<string, AbandonedNote>)
      : {};
  } catch {
    return {};
  }
}

function writeNotes(dir: string, notes: Record<string, AbandonedNote>): void {
  if (Object.keys(notes).length === 0) rmSync(notesPath(dir), { force: true });
  else writeOwnFile(notesPath(dir), `${JSON.stringify(notes, undefined, '\t')}\n`, 0o600, heirOf(dir));
}

/** Notes, on the way out of a second stop, that `refreshToken` of `profile` was sent and its answer abandoned. Best effort, synchronous. */
export function noteAbandoned(dir: string, profile: string, refreshToken: string, nowMs: number): void {
  try {
    const notes = readNotes(dir);
    notes[profile] = sentMark(refreshToken, nowMs);
    writeNotes(dir, notes);
  } catch {
    // An exit at once: the words on stderr still say the login may be lost.
  }
}

/** The note of an abandoned refresh that sent `refreshToken` of `profile`; a note of another token (a login since) is removed. */
export function abandonedBy(dir: string, profile: string, refreshToken: string): AbandonedNote | undefined {
  const notes = readNotes(dir);
  const note = notes[profile];
  if (note === undefined) return undefined;
  if (note.refresh_token_sha256 === digest(refreshToken)) return note;
  clearAbandoned(dir, profile);
  return undefined;
}

/**
 * The mark a refresh sets on its credential just before it is sent (`refresh_sent`): a process
 * killed (SIGKILL, an OOM kill, a power cut) between sending it and saving the answer runs nothing
 * on its way out, so no note is written then; the mark is written before, and the save of the
 * answer, which replaces the credential, takes it off with no write of its own. One write more
 * per refresh. The note of a second stop (noteAbandoned) is the same record.
 */
export function sentMark(refreshToken: string, nowMs: number): AbandonedNote {
  return {
    refresh_token_sha256: digest(refreshToken),
    pid: process.pid,
    at: isoSeconds(nowMs),
  };
}

/**
 * The code of the refusal a refresh also sets beside its mark while it is in flight (attack23b F3):
 * an svc older than the mark (session 22) does not know `refresh_sent` and, after a kill, sent the
 * marked token again (the platform then revokes the login's whole family); every svc since
 * session 8 hands out nothing of a credential with `refresh_refused` and refreshes it no more. The
 * saved answer replaces the credential, which clears both; this svc goes by the mark (sentUnsaved)
 * and takes this refusal for none (refusalOf).
 */
export const IN_FLIGHT = 'refresh_in_flight';

/** The refusal set beside `mark` while the refresh of `profile` is in flight: what an older svc says. */
export function inFlightRefusal(profile: string, mark: AbandonedNote): StoredCredential['refresh_refused'] {
  return {
    code: IN_FLIGHT,
    message: `the session of profile "${profile}" was being refreshed by svc process ${mark.pid} at ${mark.at}: if that process still runs, run the command again once it is done; if it ended before it saved the answer, the stored refresh token may be spent, and sending it again would make the platform revoke the login`,
    at: mark.at,
  };
}

/** A credential without the refusal of a refresh in flight: what this svc reads a refusal from, and writes back. */
export function withoutInFlight(credential: StoredCredential): StoredCredential {
  if (credential.refresh_refused?.code !== IN_FLIGHT) return credential;
  const { refresh_refused: _inFlight, ...rest } = credential;
  return rest;
}

/** The mark of a refresh of `credential`'s very refresh token that was sent and whose answer was never saved. */
export function sentUnsaved(credential: StoredCredential): AbandonedNote | undefined {
  const mark = credential.refresh_sent;
  const token = credential.refresh_token;
  return mark !== undefined && token !== undefined && mark.refresh_token_sha256 === digest(token)
    ? mark
    : undefined;
}

/** Forgets `profile`'s note (its session refreshed and saved since). Best effort. */
export function clearAbandoned(dir: string, profile: string): void {
  try {
    const notes = readNotes(dir);
    if (!(profile in notes)) return;
    delete notes[profile];
    writeNotes(dir, notes);
  } catch {
    // left: it names a token no longer stored, and is removed at the next look
  }
}
