/**
 * A listed item's identity: what tells two rows of a list apart, for every kind svc lists. The one
 * rule shared by the repeated-page check (paging.ts `CursorTrail.read`: a listing that prints or is
 * judged prints a repeated item once, and stops on a whole page repeated) and the dead-letter drains' "an entry a page repeats counts once"
 * (platform/webhooks.ts `DeadLetters.count`, commands/webhooks/dlq/run-entries.ts `RunEntries`).
 *
 * - `id`: tenants, users, roles, records, audit entries, webhooks, deliveries, dead-letter
 *   entries, API keys (the reference's and src/api/schemas' lists);
 * - `client_id`: an OAuth client (it has no `id`);
 * - a role assignment (`/v1/role-assignments`, `/v1/users/{id}/roles`: no `id`): its
 *   `audit_trail_id` (the audit entry its grant wrote, one per grant), else its user, role and
 *   `assigned_at` (and `tenant_id` when given): a user holds a role once at a time, and a grant
 *   made again is another `assigned_at` (review21 F3: the check compared `id` only, and a
 *   repeated page of grants printed rows twice and left one out, `svc export` too);
 * - any other object (a permission of the catalog, a row of another server's list through `svc
 *   api --paginate`), text, numbers: none, nothing is compared. A row without an identity cannot
 *   be told from its equal neighbour (a check log's `{"status":"failed"}` twice in a row), so
 *   its repeat proves nothing (review21c F2: its JSON as a key stopped such a list, unchanged,
 *   on every run).
 *
 * The key reads as the item's name where it is shown (an error names the item repeated).
 */
export function itemKey(item: unknown): string | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const fields = item as Record<string, unknown>;
  const text = (name: string) => {
    const value = fields[name];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const own = text('id') ?? text('client_id');
  if (own !== undefined) return own;
  const [user, role] = [text('user_id'), text('role_id')];
  const grant = user !== undefined && role !== undefined ? `${user} ${role} ` : '';
  const audit = text('audit_trail_id');
  if (audit !== undefined) return `${grant}${audit}`;
  const at = text('assigned_at');
  if (grant !== '' && at !== undefined) {
    const tenant = text('tenant_id');
    return `${grant}${at}${tenant === undefined ? '' : ` ${tenant}`}`;
  }
  return undefined;
}
