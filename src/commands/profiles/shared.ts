import { unknownProfileError } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { maskSecret } from '../../output/format.js';

export interface ProfileRow {
  name: string;
  active: boolean;
  base_url: string | null;
  app_url: string | null;
  tenant: string | null;
  org: string | null;
  client_id: string | null;
  credential: string | null;
}

/** Every profile with its settings and masked credential, by name. */
export function rows(ctx: Context): ProfileRow[] {
  const store = ctx.store();
  const active = store.activeProfile();
  const profiles = store.profiles();
  return Object.keys(profiles)
    .sort()
    .map((name) => {
      const p = profiles[name] ?? {};
      const credential = store.credential(name);
      return {
        name,
        active: name === active,
        base_url: p.base_url ?? null,
        app_url: p.app_url ?? null,
        tenant: p.tenant ?? null,
        org: p.org ?? null,
        client_id: p.client_id ?? null,
        credential: credential ? `${credential.type} ${maskSecret(credential.access_token)}` : null,
      };
    });
}

/** A profile that must exist (exit 5 otherwise). */
export function existing(ctx: Context, name: string): ProfileRow {
  const row = rows(ctx).find((r) => r.name === name);
  if (!row)
    throw unknownProfileError(
      name,
      rows(ctx).map((r) => r.name),
    );
  return row;
}
