import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  /** A confidential client's secret, kept for refreshing (OAuth); public clients have none. */
  client_secret?: string;
  /** The token endpoint the tokens came from: refreshes go there, whatever --base-url says later. */
  token_url?: string;
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

type ConfFile = 'config' | 'credentials';

/**
 * Profiles (config.json) and credentials (credentials.json) under one private directory.
 *
 * Writes go through conf, which writes atomically (via `atomically`: a temporary file chmod-ed
 * to 0600, then renamed), so a looser existing file is replaced by a 0600 one on the next
 * write. Reads parse the file directly on every call — cheap at start-up, and several processes
 * see each other's writes. A file that does not parse is reported by name, never reset.
 */
export class ConfigStore {
  readonly dir: string;
  readonly configPath: string;
  readonly credentialsPath: string;
  #conf: Promise<typeof import('conf').default> | undefined;

  constructor(dir: string) {
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

  profiles(): Record<string, ProfileSettings> {
    return { ...this.#read<ConfigFile>(this.configPath).profiles };
  }

  profile(name: string): ProfileSettings | undefined {
    return this.#read<ConfigFile>(this.configPath).profiles?.[name];
  }

  async setProfileValues(name: string, values: ProfileSettings): Promise<void> {
    checkProfileName(name);
    await this.#update<ConfigFile>('config', (file) => {
      file.profiles ??= {};
      file.profiles[name] = { ...file.profiles[name], ...values };
    });
  }

  async unsetProfileValue(name: string, key: ProfileKey): Promise<void> {
    await this.#update<ConfigFile>('config', (file) => {
      const profile = file.profiles?.[name];
      if (profile) delete profile[key];
    });
  }

  /** Removes a profile and its credential; returns whether anything existed. */
  async removeProfile(name: string): Promise<boolean> {
    let existed = false;
    await this.#update<ConfigFile>('config', (file) => {
      if (file.profiles && name in file.profiles) {
        delete file.profiles[name];
        existed = true;
      }
      if (file.active_profile === name) delete file.active_profile;
    });
    return (await this.removeCredential(name)) || existed;
  }

  credential(name: string): StoredCredential | undefined {
    return this.#read<CredentialsFile>(this.credentialsPath).profiles?.[name];
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
      if (file.profiles && name in file.profiles) {
        delete file.profiles[name];
        existed = true;
      }
    });
    return existed;
  }

  #read<T extends Record<string, unknown>>(path: string): T {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {} as T;
      throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = text.trim() === '' ? {} : JSON.parse(text);
    } catch (error) {
      throw corrupt(path, error);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw corrupt(path, new Error('it does not hold a JSON object'));
    }
    return parsed as T;
  }

  async #update<T extends Record<string, unknown>>(name: ConfFile, change: (file: T) => void): Promise<void> {
    const path = name === 'config' ? this.configPath : this.credentialsPath;
    const file = this.#read<T>(path);
    change(file);
    try {
      ensurePrivateDir(this.dir);
    } catch (error) {
      throw new ConfigError(`cannot create config directory ${this.dir}: ${(error as Error).message}`, {
        hint: 'set SVC_CONFIG_DIR to a writable directory',
      });
    }
    this.#conf ??= import('conf').then((m) => m.default);
    const Conf = await this.#conf;
    try {
      const conf = new Conf<T>({
        cwd: this.dir,
        configName: name,
        projectName: 'svc',
        projectSuffix: '',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      });
      conf.store = file;
    } catch (error) {
      if (error instanceof SyntaxError) throw corrupt(path, error);
      throw new ConfigError(`cannot write ${path}: ${(error as Error).message}`);
    }
  }
}

function corrupt(path: string, error: unknown): ConfigError {
  const reason = error instanceof SyntaxError ? 'it is not valid JSON' : (error as Error).message;
  return new ConfigError(`cannot read ${path}: ${reason}`, {
    hint: 'fix or remove the file; svc never resets it on its own',
  });
}
