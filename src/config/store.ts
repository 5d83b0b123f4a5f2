import Conf from 'conf';
import { ConfigError, UsageError } from '../errors.js';
import { ensurePrivateDir } from './paths.js';

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
  obtained_at: string;
}

type ConfigFile = {
  active_profile?: string;
  profiles?: Record<string, ProfileSettings>;
};

type CredentialsFile = {
  profiles?: Record<string, StoredCredential>;
};

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(
      `invalid profile name ${JSON.stringify(name)}: use letters, digits, '.', '_' or '-' (at most 64)`,
    );
  }
  return name;
}

/**
 * Profiles (config.json) and credentials (credentials.json) under one private directory.
 * Both files are written atomically with mode 0600 (conf + atomically chmod the temporary file
 * before renaming it, so a looser existing file is replaced by a 0600 one on the next write).
 * Every read goes back to the file, so several processes see each other's writes. A file that
 * does not parse is reported, never reset.
 */
export class ConfigStore {
  readonly dir: string;
  readonly #config: Conf<ConfigFile>;
  readonly #credentials: Conf<CredentialsFile>;

  constructor(dir: string) {
    this.dir = dir;
    try {
      ensurePrivateDir(dir);
    } catch (error) {
      throw new ConfigError(`cannot create config directory ${dir}: ${(error as Error).message}`, {
        hint: 'set SVC_CONFIG_DIR to a writable directory',
      });
    }
    this.#config = open<ConfigFile>(dir, 'config');
    this.#credentials = open<CredentialsFile>(dir, 'credentials');
  }

  get configPath(): string {
    return this.#config.path;
  }

  get credentialsPath(): string {
    return this.#credentials.path;
  }

  activeProfile(): string | undefined {
    return read(this.#config).active_profile;
  }

  setActiveProfile(name: string): void {
    update(this.#config, (file) => {
      file.active_profile = checkProfileName(name);
    });
  }

  profiles(): Record<string, ProfileSettings> {
    return { ...read(this.#config).profiles };
  }

  profile(name: string): ProfileSettings | undefined {
    return read(this.#config).profiles?.[name];
  }

  setProfileValues(name: string, values: ProfileSettings): void {
    checkProfileName(name);
    update(this.#config, (file) => {
      file.profiles ??= {};
      file.profiles[name] = { ...file.profiles[name], ...values };
    });
  }

  unsetProfileValue(name: string, key: ProfileKey): void {
    update(this.#config, (file) => {
      const profile = file.profiles?.[name];
      if (profile) delete profile[key];
    });
  }

  /** Removes a profile and its credential; returns whether anything existed. */
  removeProfile(name: string): boolean {
    let existed = false;
    update(this.#config, (file) => {
      if (file.profiles && name in file.profiles) {
        delete file.profiles[name];
        existed = true;
      }
      if (file.active_profile === name) delete file.active_profile;
    });
    return this.removeCredential(name) || existed;
  }

  credential(name: string): StoredCredential | undefined {
    return read(this.#credentials).profiles?.[name];
  }

  setCredential(name: string, credential: StoredCredential): void {
    checkProfileName(name);
    update(this.#credentials, (file) => {
      file.profiles ??= {};
      file.profiles[name] = credential;
    });
  }

  removeCredential(name: string): boolean {
    let existed = false;
    update(this.#credentials, (file) => {
      if (file.profiles && name in file.profiles) {
        delete file.profiles[name];
        existed = true;
      }
    });
    return existed;
  }
}

function open<T extends Record<string, unknown>>(dir: string, name: string): Conf<T> {
  try {
    return new Conf<T>({
      cwd: dir,
      configName: name,
      projectName: 'svc',
      projectSuffix: '',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
    });
  } catch (error) {
    throw corrupt(`${dir}/${name}.json`, error);
  }
}

function corrupt(path: string, error: unknown): ConfigError {
  const reason = error instanceof SyntaxError ? 'it is not valid JSON' : (error as Error).message;
  return new ConfigError(`cannot read ${path}: ${reason}`, {
    hint: 'fix or remove the file; svc never resets it on its own',
  });
}

function read<T extends Record<string, unknown>>(conf: Conf<T>): T {
  let store: T;
  try {
    store = conf.store;
  } catch (error) {
    throw corrupt(conf.path, error);
  }
  if (store === null || typeof store !== 'object' || Array.isArray(store)) {
    throw corrupt(conf.path, new Error('it does not hold a JSON object'));
  }
  return store;
}

function update<T extends Record<string, unknown>>(conf: Conf<T>, change: (file: T) => void): void {
  const file = structuredClone(read(conf));
  change(file);
  try {
    conf.store = file;
  } catch (error) {
    throw new ConfigError(`cannot write ${conf.path}: ${(error as Error).message}`);
  }
}
