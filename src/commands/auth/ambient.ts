import { describeSource } from '../../config/settings.js';
import { sameUrl } from '../../config/store.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { shellWord } from '../../system/shell-words.js';

/** The settings a login saves into the profile when they come from a flag or the environment. */
const SAVED_AT_LOGIN = [
  ['base_url', '--base-url'],
  ['app_url', '--app-url'],
  ['client_id', '--client-id'],
] as const;

/**
 * An environment variable is ambient: exported once for another server, forgotten, inherited by
 * every command. A login would save it over the profile's own value for good (`svc -p staging
 * login` under a leftover SVC_BASE_URL=prod made "staging" point at prod), so when one disagrees
 * with what the profile holds, the login is refused (exit 2) before anything is opened, sent or
 * saved, naming both values and how to choose: the flag moves the profile on purpose. When the
 * profile has no app_url or client_id of its own (derived from base_url, or the default), an
 * exported one is used for that login and not saved (storeLogin): the profile goes on deriving it.
 * (SVC_TENANT is never saved by a login: only a tenant the server names, when none is in force.)
 */
export function refuseAmbientRewrite(ctx: Context): void {
  const settings = ctx.settings();
  const stored = ctx.store().profile(settings.profile);
  if (stored === undefined) return;
  for (const [key, flag] of SAVED_AT_LOGIN) {
    if (settings.sources[key] !== 'env') continue;
    const fromEnv = settings.values[key];
    const own = stored[key];
    if (fromEnv === undefined || own === undefined) continue;
    if (key === 'client_id' ? fromEnv === own : sameUrl(fromEnv, own)) continue;
    const variable = describeSource(key, 'env', settings.profile);
    throw new UsageError(
      `${variable} (${fromEnv}) differs from profile "${settings.profile}"'s ${key} (${own}); svc did not log in or change the profile`,
      {
        code: 'ambient_setting',
        hint: `unset ${variable} to log in with ${own}, or pass \`${flag} ${shellWord(fromEnv)}\` to save ${fromEnv} in profile "${settings.profile}" instead`,
      },
    );
  }
}
