import { invisibleIn } from '../api/characters.js';
import { closest, didYouMean } from '../api/suggest.js';
import { EMAIL_NOT_ID, emailAsUserId, isEmailAddress } from '../api/user-id.js';
import type { Platform } from '../platform/index.js';
import { missingIdMessage } from './diff-integrations.js';
import { eachLimited, type LiveTenant, TENANTS_AT_ONCE, type TenantInfo } from './live.js';
import type { AccessFile, DesiredTenant } from './model.js';
import type { Problem } from './source.js';

/**
 * The file's references, checked against the platform before anything is compared: permissions
 * of its catalog, roles that exist (built-in, live or declared), users who may hold roles in
 * the tenant (looked up 100 at a time, only those who hold no role there yet), and the ids of
 * live webhooks and clients an entry names (unless --create-missing creates what is not there). Each problem has its line and, where one is close,
 * a suggestion.
 */
export async function checkReferences(
  platform: Platform,
  file: AccessFile,
  tenants: readonly TenantInfo[],
  desired: ReadonlyMap<string, DesiredTenant>,
  live: ReadonlyMap<string, LiveTenant>,
  /** The platform's permission catalog: an organisation permission (scope) is no tenant role's. */
  catalog: ReadonlyArray<{ name: string; scope?: string | undefined }>,
  signal: AbortSignal,
  /** svc plan --create-missing: an id the tenant does not have is a creation, not a problem. */
  createMissing = false,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  const ofOrganization = new Set(catalog.filter((p) => p.scope === 'organization').map((p) => p.name));
  const names = catalog.map((p) => p.name).filter((name) => !ofOrganization.has(name));
  const known = new Set(names);
  const reported = new Set<string>();
  const once = (line: number | undefined, message: string) => {
    const key = `${line}:${message}`;
    if (reported.has(key)) return;
    reported.add(key);
    problems.push({ line, message });
  };
  // The same problem of one entry in several tenants (a block naming many) is said once, naming them all.
  const order = new Map(tenants.map((t, i) => [t.slug, i]));
  const across = new Map<
    string,
    { line: number | undefined; slugs: string[]; say: (where: string) => string }
  >();
  const inTenant = (line: number | undefined, what: string, slug: string, say: (where: string) => string) => {
    const key = `${line}:${what}`;
    const entry = across.get(key) ?? { line, slugs: [], say };
    // One entry granting to several users is several grants of one line: each tenant said once.
    if (!entry.slugs.includes(slug)) entry.slugs.push(slug);
    across.set(key, entry);
  };

  await eachLimited(tenants, TENANTS_AT_ONCE, async (tenant) => {
    const want = desired.get(tenant.id)!;
    const have = live.get(tenant.id)!;
    for (const role of want.roles.values()) {
      for (const permission of role.permissions) {
        if (ofOrganization.has(permission)) {
          once(
            role.line,
            `role "${role.name}": ${permission} is an organisation permission (org_admin): no tenant role can grant it`,
          );
        } else if (!known.has(permission)) {
          once(
            role.line,
            `role "${role.name}": unknown permission ${permission}${didYouMean(permission, names)}`,
          );
        }
      }
    }
    const roleNames = [...new Set([...have.roles.keys(), ...want.roles.keys()])];
    const holders = new Set<string>();
    for (const grant of have.grants.values()) holders.add(grant.user);
    const unknownUsers = new Map<string, number | undefined>();
    // With the grants left out for their shape (a bad duration): their role and user too.
    for (const grant of [...want.grants.values(), ...(want.unreadGrants ?? [])]) {
      const role = have.roles.get(grant.role);
      const unread = file.unreadRoles?.get(grant.role);
      if (!role && !want.roles.has(grant.role) && file.unreadRoles?.has(grant.role)) {
        once(
          grant.line,
          `role "${grant.role}" is not created: its entry${unread === undefined ? '' : ` at line ${unread}`} is not valid`,
        );
      } else if (!role && !want.roles.has(grant.role)) {
        const hint = didYouMean(grant.role, roleNames);
        inTenant(
          grant.line,
          `role ${grant.role}`,
          tenant.slug,
          (where) =>
            invisibleIn('role', grant.role) ?? `role "${grant.role}" does not exist in ${where}${hint}`,
        );
      } else if (role?.scope === 'organization') {
        once(grant.line, `${grant.role} is an organisation role; it is not granted per tenant`);
      } else if (role?.kind === 'custom' && !want.roles.has(grant.role) && file.manage.roles === 'all') {
        inTenant(
          grant.line,
          `undeclared ${grant.role}`,
          tenant.slug,
          (where) =>
            `role "${grant.role}" is not declared for ${where}, and the file manages roles: svc apply --prune would delete it; declare it`,
        );
      }
      if (!holders.has(grant.user) && !unknownUsers.has(grant.user)) unknownUsers.set(grant.user, grant.line);
    }
    if (unknownUsers.size > 0) {
      const found = await platform.users.existing(unknownUsers.keys(), { tenant: tenant.id, signal });
      for (const [user, line] of unknownUsers) {
        if (found.has(user)) continue;
        const near = closest(user, holders);
        const email = isEmailAddress(user) ? emailAsUserId(user) : undefined;
        // An e-mail address: said as one (its `is …` after the user it names), with how to find the id.
        const hint = email
          ? `: it is ${EMAIL_NOT_ID}; ${email.hint}`
          : near
            ? ` (did you mean ${near}?)`
            : '';
        inTenant(
          line,
          `user ${user}`,
          tenant.slug,
          (where) => `user "${user}" is not a user of ${where}${hint}`,
        );
      }
    }
    // An id the tenant does not have, and no live one of its URL or name: said here, with the
    // rest; one that could be a live one exactly as the entry says is ./diff-integrations.ts's.
    if (!createMissing) {
      for (const webhook of want.webhooks) {
        if (
          webhook.id === undefined ||
          have.webhooks.some((w) => w.id === webhook.id || w.url === webhook.url)
        )
          continue;
        once(webhook.line, missingIdMessage('webhook', webhook.id, tenant.slug, 'id'));
      }
      for (const client of want.clients) {
        if (
          client.client_id === undefined ||
          have.clients.some((c) => c.client_id === client.client_id || c.name === client.name)
        )
          continue;
        once(client.line, missingIdMessage('OAuth client', client.client_id, tenant.slug, 'client_id'));
      }
    }
  });
  for (const { line, slugs, say } of across.values()) {
    slugs.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    problems.push({ line, message: say(slugs.join(', ')) });
  }
  return problems;
}
