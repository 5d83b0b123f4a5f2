// Over 300 lines: the one store of profiles and credentials (both files, read and written
// under one lock, their checks and the proof that they can be written before something that
// cannot be undone); split, each half would need the other's lock and file handling.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { invisibleIn } from '../api/characters.js';
import { ConfigError, SvcError, UsageError } from '../errors.js';
import { credentialKind } from '../http/redact.js';
import { quoted } from '../output/format.js';
import { outOfDescriptors, systemErrorWords } from '../system/system-errors.js';
import { type ConfFile, realDisk, type StoreDisk } from './disk.js';
import { checkConfigFile, checkCredentialsFile, malformed, parseFile } from './files.js';
import { withFileLock } from './lock.js';
import { storeWriteError } from './lock-takeover.js';
import { rootLeft } from './root-left.js';
import { checkStore, makeStoreDirectories } from './store-directory.js';

/** The settings a profile can hold (`svc config set KEY VALUE`). */
export const PROFILE_KEYS = ['base_url', 'app_url', 'tenant', 'org', 'client_id'] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];
export type ProfileSettings = Partial<Record<ProfileKey, string>>;

export interface StoredCredential {
  /** `token`: an API key or JWT given to `svc login --with-token`; `oauth`: tokens from `svc login`. */
  type: 'token' | 'oauth';
  access_token: string;
  refresh_token?: string;
  /** ISO time the access token expires, when known. */
  expires_at?: string;
  scope?: string;
  client_id?: string;
  /** A confidential client's secret, kept for refreshing (OAuth); public clients have none. */
  client_secret?: string;
  /** The token endpoint the tokens came from: refreshes go there, whatever --base-url says later. */
  token_url?: string;
  /**
   * The API origin (scheme://host:port) the credential was stored for: it is sent nowhere else.
   * Absent in credentials stored by older versions; bound on first use (auth/credentials.ts).
   */
  origin?: string;
  /**
   * Set when the server definitely refused to refresh this session (invalid_grant,
   * invalid_client): the credential is kept but no longer handed out; a new login replaces it.
   */
  refresh_refused?: { code: string; message: string; at: string };
  /**
   * Set just before a refresh of this credential is sent, and gone with the save of its answer
   * (which replaces the credential): left, it says a process sent this refresh token and never
   * saved what came back (killed: auth/abandoned-refresh.ts), so the token may be spent.
   */
  refresh_sent?: { refresh_token_sha256: string; pid: number; at: string };
  /**
   * svc's id of the login this credential comes from (auth/session.ts), kept by its refreshes; a
   * new login gets a new one. Absent in credentials stored by older versions.
   */
  session?: string;
  obtained_at: string;
}

type ConfigFile = {
  active_profile?: string;
  profiles?: Record<string, ProfileSettings>;
};

type CredentialsFile = {
  profiles?: Record<string, StoredCredential>;
};

/**
 * A profile's entry in a file's `profiles`, looked up as its own entry only: `constructor`,
 * `toString` and `valueOf` are names of every object, never of a profile nobody made.
 */
function own<T>(profiles: Record<string, T> | undefined, name: string): T | undefined {
  return profiles !== undefined && Object.hasOwn(profiles, name) ? profiles[name] : undefined;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The refusal of a credential given as a profile name (exit 2, none of it repeated), or undefined. */
export function credentialAsProfileName(name: string): UsageError | undefined {
  const kind = credentialKind(name);
  if (kind === undefined) return undefined;
  return new UsageError(
    `that is ${kind === 'the API key itself' ? 'an API key' : kind}, not a profile name; nothing was saved`,
    {
      code: 'credential_as_id',
      hint: 'name the profile with -p NAME or SVC_PROFILE; an API key or token goes in the credential store (`svc login --with-token`) or SVC_TOKEN',
    },
  );
}

/**
 * Why `name` cannot be a profile's (the whole rule, said the one way), or undefined when it can.
 * A credential pasted as the name (an API key after -p, a token in SVC_PROFILE) is refused first,
 * without repeating any of it: config.json is shared and `profiles ls` prints names.
 */
export function invalidProfileName(name: string): UsageError | undefined {
  const credential = credentialAsProfileName(name);
  if (credential !== undefined) return credential;
  if (PROFILE_NAME.test(name)) return undefined;
  // A paste's invisible character is said, escaped: the name as drawn looked right (attack21b F7).
  const invisible = invisibleIn('profile name', name);
  if (invisible !== undefined) return new UsageError(invisible, { code: 'invalid_id' });
  return new UsageError(
    `invalid profile name ${quoted(name)}: a profile name starts with a letter or digit, then letters, digits, '.', '_' or '-' (at most 64 characters in all)`,
  );
}

export function checkProfileName(name: string): string {
  const invalid = invalidProfileName(name);
  if (invalid) throw invalid;
  return name;
}

/**
 * Profiles (config.json) and credentials (credentials.json) under one private directory.
 *
 * Every write takes the file's cross-process lock (config/lock.ts), re-reads the file under it,
 * applies its change and writes atomically (config/disk.ts: a new 0600 file made exclusively,
 * never through a link, then renamed over), so parallel processes never lose each other's
 * writes and a looser existing file is replaced by a 0600 one. The directory and files must be
 * the user's own (config/ownership.ts). Reads parse the file directly on
 * every call — cheap at start-up, and several processes see each other's writes. A file that
 * does not parse or has the wrong shape is reported by name (files.ts), never reset.
 */
export class ConfigStore {
  readonly dir: string;
  readonly configPath: string;
  readonly credentialsPath: string;
  readonly #disk: StoreDisk;
  /** Told when a credential file or the directory was open to others and has been tightened. */
  readonly #warn: ((message: string) => void) | undefined;
  #modesChecked = false;

  constructor(dir: string, options: { warn?: (message: string) => void; disk?: StoreDisk } = {}) {
    this.#warn = options.warn;
    this.#disk = options.disk ?? realDisk;
    this.dir = dir;
    this.configPath = join(dir, 'config.json');
    this.credentialsPath = join(dir, 'credentials.json');
  }

  activeProfile(): string | undefined {
    return this.#read<ConfigFile>(this.configPath).active_profile;
  }

  async setActiveProfile(name: string): Promise<void> {
    await this.#update<ConfigFile>('config', (file) => {
      file.active_profile = checkProfileName(name);
    });
  }

  /** Makes `name` the active profile if none is (decided under the lock); true when it did. */
  async claimActiveProfile(name: string): Promise<boolean> {
    let claimed = false;
    await this.#update<ConfigFile>('config', (file) => {
      if (file.active_profile) return;
      file.active_profile = checkProfileName(name);
      claimed = true;
    });
    return claimed;
  }

  /** Runs `work` holding the cross-process lock of one file (re-entrant; see config/lock.ts). */
  withLock<T>(name: ConfFile, work: () => Promise<T>): Promise<T> {
    // Checked before the lock's directory step, which would make a directory others can write 0700.
    this.#tightenOnce();
    return withFileLock(this.dir, this.#path(name), work, this.#warn);
  }

  /** Every profile's settings by name (an object without a prototype: only names made are in it). */
  profiles(): Record<string, ProfileSettings> {
    return Object.assign(Object.create(null), this.#read<ConfigFile>(this.configPath).profiles);
  }

  profile(name: string): ProfileSettings | undefined {
    return own(this.#read<ConfigFile>(this.configPath).profiles, name);
  }

  /** Every profile's name, sorted: each that has settings or a stored credential (hasProfile's rule). */
  profileNames(): string[] {
    const held = this.#read<CredentialsFile>(this.credentialsPath).profiles ?? {};
    return [...new Set([...Object.keys(this.profiles()), ...Object.keys(held)])].sort();
  }

  /** Whether a profile of that name exists: it has settings or a stored credential. */
  hasProfile(name: string): boolean {
    return this.profile(name) !== undefined || this.credential(name) !== undefined;
  }

  /**
   * Sets values of a profile. A new base_url takes with it an app_url that was the old base URL
   * (what `svc sandbox start` writes), whoever saves it (`config set`, a login elsewhere): kept,
   * the browser login would open the old server's page. Says whether this write made the profile
   * (it had no settings and no credential) and whether it is the store's first: decided under the
   * lock, so of several processes setting a new profile at once one says it made it (attack20 F7).
   */
  async setProfileValues(
    name: string,
    values: ProfileSettings,
  ): Promise<{ created: boolean; first: boolean }> {
    checkProfileName(name);
    let made = { created: false, first: false };
    await this.#update<ConfigFile>('config', (file) => {
      file.profiles ??= {};
      const before = own(file.profiles, name);
      const created = before === undefined && this.credential(name) === undefined;
      // The store's first: no profile has settings nor a stored credential (hasProfile's rule).
      const none =
        Object.keys(file.profiles).length === 0 &&
        Object.keys(this.#read<CredentialsFile>(this.credentialsPath).profiles ?? {}).length === 0;
      made = { created, first: created && none };
      const next = { ...before, ...values };
      const follows =
        values.base_url !== undefined &&
        values.app_url === undefined &&
        before?.app_url !== undefined &&
        before.base_url !== undefined &&
        sameUrl(before.app_url, before.base_url);
      if (follows) delete next.app_url;
      file.profiles[name] = next;
    });
    return made;
  }

  /** Removes a setting from a profile; returns whether it was set. */
  async unsetProfileValue(name: string, key: ProfileKey): Promise<boolean> {
    let was = false;
    await this.#update<ConfigFile>('config', (file) => {
      const profile = own(file.profiles, name);
      was = profile?.[key] !== undefined;
      if (profile) delete profile[key];
    });
    return was;
  }

  /**
   * Removes a profile and its credential; returns whether anything existed. The credential goes
   * first: a write that fails between the two leaves a profile without one, which `profiles rm`
   * can still remove, never a credential whose profile is gone.
   */
  async removeProfile(name: string): Promise<boolean> {
    let existed = await this.removeCredential(name);
    await this.#update<ConfigFile>('config', (file) => {
      if (own(file.profiles, name) !== undefined) {
        delete file.profiles?.[name];
        existed = true;
      }
      if (file.active_profile === name) delete file.active_profile;
    });
    return existed;
  }

  credential(name: string): StoredCredential | undefined {
    return own(this.#read<CredentialsFile>(this.credentialsPath).profiles, name);
  }

  async setCredential(name: string, credential: StoredCredential): Promise<void> {
    checkProfileName(name);
    await this.#update<CredentialsFile>('credentials', (file) => {
      file.profiles ??= {};
      file.profiles[name] = credential;
    });
  }

  async removeCredential(name: string): Promise<boolean> {
    let existed = false;
    await this.#update<CredentialsFile>('credentials', (file) => {
      if (own(file.profiles, name) !== undefined) {
        delete file.profiles?.[name];
        existed = true;
      }
    });
    return existed;
  }

  /**
   * Checks that the store is the user's own (ownership.ts) before a command that will write it asks
   * anything of the platform: a read of a store not there yet checks nothing (#tightenOnce).
   */
  checkBeforeWriting(): void {
    this.#tightenOnce();
  }

  /**
   * Proves that `name`'s file can be written now (the lock taken, room for it twice over), before
   * something that cannot be undone; a SvcError (exit 1) naming the file and the cause otherwise.
   */
  ensureWritable(name: ConfFile): void {
    this.#tightenOnce();
    const path = this.#path(name);
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {
      // no file yet
    }
    try {
      // A first login: the directory the write would make (0700) is made now.
      makeStoreDirectories(this.dir);
      this.#disk.reserve(path, 2 * size + 16 * 1024);
    } catch (error) {
      const left = rootLeft(path, error, 'write');
      if (left !== undefined) throw left;
      // Out of descriptors says the limit, as storeWriteError does (review23e L3), never the disk.
      const words = outOfDescriptors(error) ?? (error as Error).message;
      throw new SvcError('failure', `${path} cannot be written (${words})`, {
        code: 'config_write',
        cause: error,
      });
    }
  }

  /**
   * ensureWritable for each of `files`, before something that cannot be undone (a refresh token
   * spent, a session revoked or opened); else the error of the action not taken: `said(reason)`,
   * with `hint(fix)`: `fix` is `room` (the caller's words for a full or read-only disk), or, out
   * of file descriptors, to raise the limit the reason names (storeWriteError's rule: review23e L3).
   */
  proveWritable(
    files: ConfFile[],
    said: (reason: string) => string,
    hint: (fix: string) => string,
    room = 'make room on its disk (or make it writable)',
  ): void {
    try {
      for (const file of files) this.ensureWritable(file);
    } catch (error) {
      if (error instanceof ConfigError) throw error; // the store refused (exit 2), not a full disk
      throw new SvcError('failure', said((error as Error).message), {
        code: 'config_write',
        hint: hint(outOfDescriptors(error) === undefined ? room : 'raise that limit'),
        cause: error,
      });
    }
  }

  #path(name: ConfFile): string {
    return name === 'config' ? this.configPath : this.credentialsPath;
  }

  #read<T extends Record<string, unknown>>(path: string): T {
    this.#tightenOnce(true);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      // Under a file or device (HOME=/dev/null, a service account's: attack21 F1) nothing is there
      // either, as ENOTDIR is to the store's checks (statOrUndefined): SVC_TOKEN runs; a write says
      // it cannot make the directory, and the variable that moves it.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return {} as T;
      throw (
        rootLeft(path, error, 'read') ?? new ConfigError(`cannot read ${path}: ${systemErrorWords(error)}`)
      );
    }
    const file = parseFile(path, text);
    if (path === this.configPath) checkConfigFile(path, file, PROFILE_KEYS);
    else checkCredentialsFile(path, file);
    return file as T;
  }

  /**
   * As ssh's StrictModes: the directory and files must be the user's own before anything is read
   * or written there (config/ownership.ts); checked once per store, refused (exit 2) otherwise.
   */
  #tightenOnce(read = false): void {
    if (this.#modesChecked || process.platform === 'win32') return;
    // A read of a store that is not there reads nothing, so nothing is checked (review17b R17b-8:
    // SVC_TOKEN in a HOME root does not own); the first write checks before it makes anything.
    if (read && !existsSync(this.dir)) return;
    checkStore(this.dir, { config: this.configPath, credentials: this.credentialsPath }, this.#warn);
    this.#modesChecked = true;
  }

  /** Read-change-write under the file's lock: the change applies to what is on disk now. */
  async #update<T extends Record<string, unknown>>(name: ConfFile, change: (file: T) => void): Promise<void> {
    const path = this.#path(name);
    await this.withLock(name, async () => {
      const file = this.#read<T>(path);
      change(file);
      try {
        await this.#disk.write(this.dir, name, file);
      } catch (error) {
        if (error instanceof SyntaxError) throw malformed(path, 'it is not valid JSON');
        if (error instanceof ConfigError) throw error;
        const left = rootLeft(path, error, 'write');
        if (left !== undefined) throw left;
        throw storeWriteError(`cannot write ${path}`, error);
      }
    });
  }
}

/** Two URLs that name the same place (`https://a.example` and `https://a.example/`); false if either is no URL. */
export function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}
