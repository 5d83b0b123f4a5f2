import { createHmac } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { envToken } from '../auth/credentials.js';
import { jwtSubject } from '../auth/identity.js';
import type { Context } from '../context.js';
import { pathWord } from '../system/shell-words.js';
import { head, tail } from './csv.js';
import { headerOf, type JournalHeader, journalLines, type RunOwner, refusedOwner } from './journal.js';
import { lockHeld } from './lock.js';

/**
 * Who runs a bulk run, as its journal knows them: a run belongs to its caller, and the same
 * command run with another credential (another user, another key) is a run of its own, never the
 * resume of someone else's (whose rows it did not do, and may not have the rights to).
 */
export interface Caller {
  /** Stable and not secret: what the run's identity hashes (operation.ts). */
  id: string;
  /** The caller in words for another caller's note: `usr_admin, profile "default"`. */
  shown: string;
}

/** Mixed into the hash of a credential, so the journal's hash is of no use anywhere else. */
const SALT = 'svc bulk-run caller 1';

/**
 * The caller of this run: the profile and the credential it sends (SVC_TOKEN, else the profile's
 * stored one), read without a request. A JWT (a login, an OAuth token, SVC_TOKEN) is its subject,
 * the user, so a refreshed token or a new login of the same user resumes the same run; an opaque
 * credential (an API key) is a salted hash of it, or of its login session when it is refreshed.
 * Never the credential itself.
 */
export function callerOf(ctx: Context): Caller {
  const profile = ctx.settings().profile;
  const env = ctx.env.SVC_TOKEN ? envToken(ctx.env.SVC_TOKEN) : undefined;
  const stored = env === undefined ? ctx.store().credential(profile) : undefined;
  const token = env ?? stored?.access_token;
  const where = `profile "${profile}"${env === undefined ? '' : ', SVC_TOKEN'}`;
  if (!token) return { id: JSON.stringify([profile, 'none']), shown: `no credential, ${where}` };
  const jwt = jwtSubject(token);
  if (jwt !== undefined) {
    return { id: JSON.stringify([profile, 'sub', jwt.iss, jwt.sub]), shown: `${jwt.sub}, ${where}` };
  }
  // An OAuth login's opaque tokens change at each refresh; its session does not.
  const secret = stored?.type === 'oauth' && stored.session ? `session:${stored.session}` : token;
  const hash = createHmac('sha256', SALT).update(secret).digest('hex');
  return { id: JSON.stringify([profile, 'key', hash]), shown: `credential ${hash.slice(0, 12)}, ${where}` };
}

/** A journal's header (journalLines' rule): at most 64 KiB of it is read (svc writes a few hundred bytes). */
function headerAt(path: string): JournalHeader | undefined {
  try {
    return headerOf(journalLines(head(path, 64 * 1024).toString('utf8'))[0] ?? '');
  } catch {
    return undefined;
  }
}

/** The journals of one command (`kind`) in the state directory's `dir`, in name order, each with its header if it reads. */
function journalsOf(dir: string, kind: string): Array<{ path: string; header: JournalHeader | undefined }> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // no journals yet
  }
  return names
    .sort()
    .filter((name) => name.startsWith(`${kind}-`) && name.endsWith('.ndjson'))
    .map((name) => {
      const path = join(dir, name);
      return { path, header: headerAt(path) };
    });
}

/**
 * For a new run in the state directory's journals (`dir`): a journal of the same command that is
 * not this caller's. One an earlier svc wrote without its caller is refused (refusedOwner: svc
 * cannot tell whose it is, and does not leave it without a word); another caller's is the line
 * a new run says first (they resume theirs with the same command).
 */
export function otherCallersRun(dir: string, kind: string, owner: RunOwner): string | undefined {
  const others: Array<{ path: string; header: JournalHeader }> = [];
  for (const { path, header } of journalsOf(dir, kind)) {
    if (header === undefined || header.operation === owner.operation) continue;
    const refused = refusedOwner(path, header, owner);
    // An earlier svc's run of this command: refused, running (journal_locked) or left.
    if (refused?.code === 'journal_caller_unknown' || refused?.code === 'journal_locked') throw refused;
    if (refused) others.push({ path, header });
  }
  const [other] = others;
  if (other === undefined) return undefined;
  const by = typeof other.header.by === 'string' ? ` by ${other.header.by}` : '';
  const at = typeof other.header.started_at === 'string' ? ` started at ${other.header.started_at}` : '';
  const more = others.length > 1 ? ` (and ${others.length - 1} more)` : '';
  return `note: another caller's unfinished run of this command${at}${by} is in ${other.path}${more}; this is a new run of your own, which leaves that one to its caller (see it with \`cat ${pathWord(other.path)}\`)`;
}

/**
 * For a run in the state directory's journals (`dir`), at its end: a journal of the same command
 * by the same caller against the same server and tenant (its header's `family`, ownerOf) but of
 * another input or other flags, whose run is unfinished: a file fixed and run again leaves the
 * first file's journal, which nothing said (attack25a F10). A journal an svc before session 25
 * wrote has no `family`: its header holds only hashes of the whole command, so it is not told.
 */
export function earlierInputsRun(
  dir: string,
  kind: string,
  owner: RunOwner,
  own: string,
): string | undefined {
  if (owner.family === undefined) return undefined;
  const found: Array<{ path: string; header: JournalHeader }> = [];
  for (const { path, header } of journalsOf(dir, kind)) {
    // A run of it still going (another terminal, a job) is no earlier run to resume or remove.
    if (
      path === own ||
      header?.family !== owner.family ||
      header.operation === owner.operation ||
      allDone(path) ||
      lockHeld(path)
    )
      continue;
    found.push({ path, header });
  }
  const [other] = found;
  if (other === undefined) return undefined;
  const command = kind.replaceAll('-', ' ');
  const at = typeof other.header.started_at === 'string' ? ` started at ${other.header.started_at}` : '';
  const more = found.length > 1 ? ` (and ${found.length - 1} more)` : '';
  return `note: an earlier unfinished ${command} run of yours${at}, against this server and tenant but of another input or other flags, is in ${other.path}${more}; to resume it, run the same command again with its input and flags as they were, or remove it (\`rm ${pathWord(other.path)}\`)`;
}

/** Whether a journal's last line says its run finished with every item done (left: it could not be removed). */
function allDone(path: string): boolean {
  try {
    const lines = tail(path, 4096).toString('utf8').trim().split('\n');
    return Object.hasOwn(JSON.parse(lines[lines.length - 1] ?? '') as object, 'all_done');
  } catch {
    return false;
  }
}
