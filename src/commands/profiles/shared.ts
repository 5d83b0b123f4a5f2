import { didYouMean } from '../../api/suggest.js';
import {
  chooseProfileHint,
  describeSource,
  profileOption,
  resolveProfileName,
  type SettingSource,
  shownSetting,
  unknownProfileError,
} from '../../config/settings.js';
import { PROFILE_KEYS, type ProfileKey } from '../../config/store.js';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { redactText } from '../../http/redact.js';
import { maskSecret } from '../../output/format.js';
import { shellWord } from '../../system/shell-words.js';

export interface ProfileRow {
  name: string;
  /** The active profile (config.json's active_profile, set by `svc profiles use`). */
  active: boolean;
  /** The profile this command uses: -p, else SVC_PROFILE, else the active one, else "default". */
  in_use: boolean;
  base_url: string | null;
  app_url: string | null;
  tenant: string | null;
  org: string | null;
  client_id: string | null;
  credential: string | null;
}

const shown = (key: ProfileKey, value: string | undefined) =>
  value === undefined ? null : shownSetting(key, value);

/**
 * What `svc profiles show` and `svc logout` say of a profile an older svc saved under a credential's
 * name (refused since): shown masked, never in clear, and how to be rid of it.
 */
export const CREDENTIAL_NAMED_PROFILE =
  'the name of that profile is a credential, which an older svc kept in config.json (a file people copy and commit): remove the profile with `svc profiles rm "$NAME"`, then rotate the credential';

/**
 * Every profile with its settings and masked credential, by name: one with a credential and no
 * settings too (config.json edited by hand, an older svc's), which commands run with.
 */
export function rows(ctx: Context): ProfileRow[] {
  return ctx
    .store()
    .profileNames()
    .map((name) => profileRow(ctx, name));
}

/** One profile's row (rows()): its name and every value that may hold a credential masked. */
export function profileRow(ctx: Context, name: string): ProfileRow {
  const store = ctx.store();
  const active = store.activeProfile();
  const inUse = profileInUse(ctx).name;
  const p = store.profiles()[name] ?? {};
  const credential = store.credential(name);
  return {
    // A name that holds a credential (refused since, but maybe saved by an older svc) masked too.
    name: redactText(name),
    active: name === active,
    in_use: name === inUse,
    // A credential pasted as a setting (refused since, but maybe saved by an older svc) masked.
    base_url: shown('base_url', p.base_url),
    app_url: shown('app_url', p.app_url),
    tenant: shown('tenant', p.tenant),
    org: shown('org', p.org),
    client_id: shown('client_id', p.client_id),
    credential: credential ? `${credential.type} ${maskSecret(credential.access_token)}` : null,
  };
}

/**
 * The settings a flag or an environment variable overrides for every profile in this run, said
 * beside a listing of stored values (`profiles ls`/`show`), which alone would answer "where does
 * prod point?" wrongly for this shell (F6); undefined when none does.
 */
export function overrideNote(ctx: Context): string | undefined {
  let settings: ReturnType<Context['settings']>;
  try {
    settings = ctx.settings();
  } catch {
    return undefined;
  }
  const said = PROFILE_KEYS.flatMap((key) => {
    const source = settings.sources[key];
    const value = settings.values[key];
    if ((source !== 'env' && source !== 'flag') || value === undefined) return [];
    return [`${describeSource(key, source, settings.profile)}=${shownSetting(key, value)}`];
  });
  if (said.length === 0) return undefined;
  return `${said.join(', ')} ${said.length === 1 ? 'overrides' : 'override'} the stored value of every profile shown, for commands run here`;
}

/**
 * A profile that must exist (exit 5 otherwise). One to remove that does not exist is said as
 * that, with the profiles there are, never how to create it (attack25a F10: `profiles rm nope`
 * advised `svc -p nope config set base_url URL`).
 */
export function existing(ctx: Context, name: string, purpose?: 'remove'): ProfileRow {
  const all = rows(ctx);
  const row = all.find((r) => r.name === name);
  if (row) return row;
  const known = all.map((r) => r.name);
  if (purpose !== 'remove') throw unknownProfileError(name, known);
  throw new NotFoundError(`no profile named "${name}" to remove${didYouMean(name, known)}`, {
    hint: known.length === 0 ? 'you have no profiles' : `yours: ${[...known].sort().join(', ')}`,
  });
}

/**
 * The profile a command uses and why (-p, SVC_PROFILE, the active one, or "default"), read
 * without checking the profile's settings: `profiles ls` shows it even when they are broken.
 */
export function profileInUse(ctx: Context): { name: string; source: SettingSource } {
  const store = ctx.store();
  return resolveProfileName(ctx.globals, ctx.env, () => store.activeProfile());
}

/**
 * Why the profile in use is not the active one, for people (undefined when it is): -p or
 * SVC_PROFILE naming another profile, or one that does not exist, or no active profile at all.
 */
export function inUseNote(ctx: Context): string | undefined {
  const store = ctx.store();
  const active = store.activeProfile();
  const { name, source } = profileInUse(ctx);
  if (name === active && (source !== 'profile' || store.hasProfile(name))) return undefined;
  const given = source === 'flag' ? profileOption(name) : `SVC_PROFILE=${shellWord(name)}`;
  const where = source === 'flag' ? 'for this command' : 'in this shell';
  if (source === 'flag' || source === 'env') {
    if (!store.hasProfile(name)) {
      return `${given} names no profile: commands ${where} fail until ${source === 'flag' ? 'it is changed' : 'it is unset'} or the profile is created`;
    }
    return `${given} puts profile "${name}" (>) in force ${where}, not the active profile${active === undefined ? '' : ` "${active}" (*)`}`;
  }
  return noActiveProfile(ctx);
}

/**
 * What to say when no profile is active (or the active one is gone): which profile commands use
 * now, and how to choose one, naming the profiles there are.
 */
export function noActiveProfile(ctx: Context): string {
  const store = ctx.store();
  const names = store.profileNames();
  const active = store.activeProfile();
  const start =
    active === undefined ? 'no profile is active' : `the active profile "${active}" does not exist`;
  const fallback = active === undefined && names.includes('default') ? ', so commands use "default" (>)' : '';
  return `${start}${fallback}; ${chooseProfileHint(names)}`;
}

/**
 * SVC_PROFILE beats the active profile: when it names another one than `name`, just made active
 * (profiles use, sandbox start), the words that say commands in this shell do not use `name`.
 */
export function activeOverridden(env: Context['env'], name: string): string | undefined {
  const set = env.SVC_PROFILE;
  return set && set !== name
    ? `SVC_PROFILE=${set} is set and overrides the active profile in this shell: commands here still use "${set}" until you unset it`
    : undefined;
}
