import { Command } from 'commander';
import { canonicalTenantRef } from '../../api/tenant-id.js';
import {
  characterInSetting,
  checkBaseUrlPath,
  checkUrlSetting,
  credentialSettingMend,
  credentialSettingProblem,
  ENV_FOR,
  loginCommand,
  profileFlag,
  type Settings,
  shownSetting,
} from '../../config/settings.js';
import { type ProfileSettings, sameUrl } from '../../config/store.js';
import type { Context } from '../../context.js';
import { InterruptedError, lookupMayFail, SvcError, UsageError } from '../../errors.js';
import { ForeignTenantError, findTenant, UnknownTenantError } from '../../platform/tenant-ref.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { checkKey, KEYS } from './shared.js';

export async function runConfigSet(ctx: Context, rawKey: string, rawValue: string): Promise<void> {
  const key = checkKey(rawKey);
  const given = nonEmpty('VALUE', rawValue);
  // A tenant id is kept in its canonical lower case (src/api/tenant-id.ts); a URL without a trailing
  // "/", so `$(svc config get base_url)/v1/me` (the `auth token` example) is not `//v1/me`.
  const value =
    key === 'tenant'
      ? canonicalTenantRef(given)
      : key === 'base_url' || key === 'app_url'
        ? given.replace(/\/+$/, '')
        : given;
  // The profile in force, or a refusal when none is (no active profile while others exist); -p NAME
  // of a profile that does not exist yet is how one is made, so it is not refused here.
  // A credential pasted as a value is not saved: it would be sent, and printed by `config ls`.
  const settings = ctx.settings();
  const problem = credentialSettingProblem(key, value);
  if (problem !== undefined)
    throw new UsageError(`that is ${problem}`, {
      code: 'credential_as_id',
      hint: `svc did not save it; ${credentialSettingMend(key, value, settings)}`,
    });
  const control = characterInSetting(key, key, value, 'type the id again; svc did not save it');
  if (control !== undefined) throw new UsageError(control, { code: 'invalid_id' });
  if (settings.profileSource !== 'flag' && settings.profileSource !== 'env') ctx.ownProfileSettings();
  if (key === 'base_url' || key === 'app_url') checkUrlSetting(key, value, 'profile', settings);
  if (key === 'base_url') checkBaseUrlPath(value, 'profile', settings.profile);
  const check = key === 'tenant' ? await checkTenant(ctx, value) : undefined;
  const store = ctx.store();
  const before = store.profile(settings.profile);
  // Whether this set made the profile is decided under the config lock, by the write that made it:
  // of several sets of a new profile at once (xargs -P), one says so (attack20 F7).
  const { created, first } = await store.setProfileValues(settings.profile, { [key]: value });
  // The first profile anyone configures becomes the active one; not one made (-p NEW) after the
  // active one was removed: which one is in force then is the user's choice (`svc profiles use`).
  const madeActive = first && (await store.claimActiveProfile(settings.profile));
  // Said once the value is saved: a config directory svc cannot write fails above, with no word of a save.
  if (check?.unchecked !== undefined) {
    ctx.out.warn(`saved without checking that ${value} is one of your tenants: ${check.unchecked}`);
  }
  const tenant = check?.known;
  if (ctx.out.isMachine)
    return ctx.out.json({
      profile: settings.profile,
      key,
      value,
      profile_created: created,
      made_active: madeActive,
    });
  const made = created ? ` (a new profile${madeActive ? ', now the active one' : ''})` : '';
  ctx.out.success(`set ${key} for profile "${settings.profile}"${made}${tenant ? `: ${tenant}` : ''}`);
  const issuedFor = key === 'base_url' ? store.credential(settings.profile)?.origin : undefined;
  const origin = key === 'base_url' ? new URL(value).origin : undefined;
  if (issuedFor && issuedFor !== origin) {
    ctx.out.warn(
      `the credential of profile "${settings.profile}" was issued for ${issuedFor} and does not apply to ${origin}: svc will not send it there; log in there with \`${loginCommand(settings)}\``,
    );
  }
  if (key === 'base_url') await appUrlAfter(ctx, settings, before, value);
  const shadow = settings.sources[key];
  if (shadow === 'env' || shadow === 'flag') {
    ctx.out.warn(`${shadow === 'env' ? ENV_FOR[key] : 'a flag'} overrides this value right now`);
  }
}

/**
 * The profile's app_url when its base_url changes: one that was the old base URL (what `svc
 * sandbox start` writes) is removed, so it follows the new one; another origin's is kept, with a
 * warning naming it (`svc login` opens its page there, and would mix two platforms).
 */
async function appUrlAfter(
  ctx: Context,
  settings: Settings,
  before: ProfileSettings | undefined,
  baseUrl: string,
): Promise<void> {
  const app = before?.app_url;
  if (app === undefined || new URL(app).origin === new URL(baseUrl).origin) return;
  const p = profileFlag(settings);
  if (before?.base_url !== undefined && sameUrl(app, before.base_url)) {
    await ctx.store().unsetProfileValue(settings.profile, 'app_url');
    ctx.out.info(
      `removed app_url (${shownSetting('app_url', app)}, the old base URL): the browser app is now found at the base URL, ${shownSetting('base_url', baseUrl)}`,
    );
    return;
  }
  ctx.out.warn(
    `app_url of profile "${settings.profile}" is still ${shownSetting('app_url', app)}: \`svc login\` opens its page there; ` +
      `\`svc ${p}config unset app_url\` makes it the base URL, or \`svc ${p}config set app_url URL\``,
  );
}

/**
 * A tenant is checked against the caller's tenants when the server can be asked: an unknown one
 * is refused (exit 5, with a suggestion; exit 4 for a tenant that exists but is not the caller's) and
 * nothing is saved. When it cannot be asked (no base URL, no credential, no network), the value is
 * saved and the caller warns, after the save, that it was not checked; Ctrl-C saves nothing (exit
 * 130). Returns how people know
 * the tenant, or why it could not be checked.
 */
async function checkTenant(ctx: Context, value: string): Promise<{ known?: string; unchecked?: string }> {
  // No server to ask (a new profile, -p NEW): that, and how to give it one; not the lookup's
  // "no profile named …", which is about the profile being new, not about the tenant.
  const settings = ctx.settings();
  if (settings.values.base_url === undefined) {
    return {
      unchecked: `profile "${settings.profile}" has no base URL to ask; set one with \`svc ${profileFlag(settings)}config set base_url URL\``,
    };
  }
  try {
    const tenant = await findTenant(await ctx.platform(), value);
    return { known: `${tenant.display_name} (${tenant.slug}, ${tenant.id})` };
  } catch (error) {
    if (error instanceof UnknownTenantError || error instanceof ForeignTenantError) throw error;
    // Ctrl-C is no "cannot be asked": it stops the command before anything is saved.
    if (error instanceof SvcError && error.category === 'interrupted')
      throw new InterruptedError(`interrupted while checking tenant ${value}; nothing was saved`);
    if (!lookupMayFail(error)) throw error;
    return { unchecked: error.message };
  }
}

export function setCommand(make: MakeContext): Command {
  return new Command('set')
    .argument('<key>', KEYS)
    .argument('<value>', 'the value')
    .description(
      'Store a setting in the profile (the first profile configured becomes the active one; a profile made\n' +
        'so is said to be new). With no profile active while others exist, it is refused (exit 5): choose one\n' +
        'with `svc profiles use NAME` or `-p NAME` (`-p NEW` makes a new profile). A tenant\n' +
        '(id or slug) is checked against your tenants when the server can be asked: an unknown one is\n' +
        'refused (exit 5); when it cannot be asked, it is saved with a warning (Ctrl-C during the check saves\n' +
        'nothing, exit 130). A new base_url takes app_url with it when app_url was the old base URL (as\n' +
        '`svc sandbox start` writes it); an app_url of another origin stays, with a warning.',
    )
    .addHelpText(
      'after',
      examples(
        ['svc config set base_url https://api.example.com', 'point the profile at an API'],
        [
          'svc -p staging config set tenant acme-payments-eu',
          'set the tenant of the "staging" profile (id or slug)',
        ],
      ),
    )
    .action(async (key: string, value: string, _f: unknown, cmd: Command) =>
      runConfigSet(await make(cmd), key, value),
    );
}
