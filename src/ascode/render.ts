import type { ChalkInstance } from 'chalk';
import { redactUrlText } from '../api/secret-names.js';
import { cellText } from '../output/format.js';
import { escapeForTerminal } from '../output/sanitize.js';
import { sym } from '../output/symbols.js';
import type { FieldChange, PlanChange, PlanDocument, PlanSummary, PlanTenant } from './plan.js';

/**
 * A plan in words: for a person on a terminal (tenants by display name, one line per change
 * with what it changes field by field under it), as tab-separated rows for pipes, and its
 * one-line summary. Everything it returns has been through the one terminal sanitizer (a
 * reviewer reads exactly what is sent: no bidi override reorders a name), and a webhook URL is
 * shown as a label, its secrets masked (redactUrlText: a secret query parameter, a credential in
 * the path; the plan document keeps it whole).
 */

/** A change's name as a label: a webhook's URL with its secrets masked (the export's rule). */
export const changeLabel = (kind: string, name: string): string =>
  kind === 'webhook' ? redactUrlText(name) : name;

/** A webhook's url field with its two URLs masked. */
const maskedUrls = (f: FieldChange): FieldChange => {
  const url = (value: unknown) => (typeof value === 'string' ? redactUrlText(value) : value);
  return { ...f, from: url(f.from), to: url(f.to) };
};

/**
 * A change as a row shows it (`svc plan --ndjson`, one line per change, goes to CI logs as apply's
 * rows do): a webhook's URL masked, as its name and in its url field. The plan document keeps it.
 */
export function labelledChange(change: PlanChange): PlanChange {
  if (change.kind !== 'webhook') return change;
  return {
    ...change,
    name: redactUrlText(change.name),
    fields: change.fields.map((f) => (f.field === 'url' ? maskedUrls(f) : f)),
  };
}

/**
 * Whether a plan holds a webhook URL with a secret in it (its saved file is then written 0600): in
 * a change, or in the scope, which names every webhook the file manages by its URL, one the plan
 * leaves unchanged too (s18 mask18 #4: such a plan was saved with the umask, 0644).
 */
export function urlSecretIn(doc: PlanDocument): boolean {
  const secret = (value: unknown) => typeof value === 'string' && redactUrlText(value) !== value;
  return doc.tenants.some(
    (tenant) =>
      (Array.isArray(tenant.scope.webhooks) && tenant.scope.webhooks.some(secret)) ||
      tenant.changes.some(
        (change) =>
          change.kind === 'webhook' &&
          (secret(change.name) ||
            change.fields.some((f) => f.field === 'url' && (secret(f.from) || secret(f.to)))),
      ),
  );
}

const show = (value: unknown): string => {
  if (value === null || value === undefined) return 'never';
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.join(', ');
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
};

const expiry = (value: unknown) => (value === null || value === undefined ? 'never' : String(value));

/** `permissions: + a, − b` for sets; `description: "x" → "y"` otherwise. */
export function describeField(change: PlanChange, f: FieldChange): string {
  if (f.field === 'expires_at') {
    if (change.action === 'create') return f.to === null ? 'permanent' : `until ${expiry(f.to)}`;
    if (change.action === 'delete')
      return f.from === null ? 'held permanently' : `held until ${expiry(f.from)}`;
    return `${expiry(f.from)} ${sym.arrow} ${expiry(f.to)}`;
  }
  if (f.field === 'grants') return `${f.from} grant(s) end with it`;
  if (change.kind === 'webhook' && f.field === 'url') return describeValues(maskedUrls(f));
  if (change.action === 'update' && Array.isArray(f.from) && Array.isArray(f.to)) {
    const from = f.from.map(String);
    const to = f.to.map(String);
    const added = to.filter((v) => !from.includes(v)).map((v) => `+ ${v}`);
    const removed = from.filter((v) => !to.includes(v)).map((v) => `${sym.minus} ${v}`);
    return `${f.field}: ${[...added, ...removed].join(', ')}`;
  }
  return describeValues(f);
}

function describeValues(f: FieldChange): string {
  if (f.from !== undefined && f.to !== undefined)
    return `${f.field}: ${show(f.from)} ${sym.arrow} ${show(f.to)}`;
  return `${f.field}: ${show(f.to ?? f.from)}`;
}

/** The identity of a creation is in its headline already; the other fields are listed. */
const IDENTITY: Record<PlanChange['kind'], string> = {
  role: 'name',
  grant: '',
  webhook: 'url',
  oauth_client: 'name',
};

function shownFields(change: PlanChange): FieldChange[] {
  return change.action === 'create'
    ? change.fields.filter((f) => f.field !== IDENTITY[change.kind])
    : change.fields;
}

const KIND_WORD: Record<PlanChange['kind'], string> = {
  role: 'role',
  grant: 'grant',
  webhook: 'webhook',
  oauth_client: 'OAuth client',
};

/** The headline of a change: `+ role fx-desk`, `~ extend tenant_analyst of usr_viewer`. */
export function headline(change: PlanChange): string {
  const sign = change.action === 'create' ? '+' : change.action === 'update' ? '~' : '-';
  let what: string;
  if (change.kind === 'grant') {
    const { user, role } = change.grant ?? { user: change.name, role: '' };
    what =
      change.verb === 'grant'
        ? `grant ${role} to ${user}`
        : change.verb === 'revoke'
          ? `revoke ${role} from ${user}`
          : `${change.verb} ${role} of ${user}`;
  } else {
    const id = change.id ?? (change.ref === undefined ? null : `${change.ref} in the file`);
    const name = changeLabel(change.kind, change.name);
    what = `${KIND_WORD[change.kind]} ${name}${id && id !== change.name ? ` (${id})` : ''}`;
  }
  return `${sign} ${what}`;
}

/** A change that can take away the caller's own reach (./own-reach.ts): where svc apply makes it. */
export const MADE_LAST = 'made last: it takes away some of your own reach';

/** Where svc apply makes a change marked last: a grant waits for its role's change (./diff.ts), which is the one that is. */
const madeLast = (change: PlanChange): string => {
  if (change.ended_by !== undefined)
    return `ends with the deletion of ${change.grant?.role}, made last: it takes away some of your own reach`;
  return change.kind === 'grant' && change.action !== 'delete' && change.needs.length > 0
    ? 'made last: after the change of its role, which takes away some of your own reach'
    : MADE_LAST;
};

/** The lines a terminal shows for a plan; colour only through `color`. */
export function planLines(doc: PlanDocument, color: ChalkInstance): string[] {
  const lines: string[] = [];
  for (const tenant of doc.tenants) {
    const title = escapeForTerminal(`${tenant.display_name} (${tenant.slug})`);
    if (tenant.changes.length === 0) {
      lines.push(`${color.bold(title)}: no changes`);
      continue;
    }
    lines.push(color.bold(title));
    for (const change of tenant.changes) {
      const paint =
        change.action === 'create' ? color.green : change.action === 'update' ? color.yellow : color.red;
      const where = change.line === null ? '' : `  (line ${change.line})`;
      const prune = `${change.prune ? `  ${sym.dash} only with --prune` : ''}${change.last ? `  ${sym.dash} ${madeLast(change)}` : ''}`;
      const inline =
        change.kind === 'grant' ? `: ${change.fields.map((f) => describeField(change, f)).join('; ')}` : '';
      lines.push(
        `  ${paint(escapeForTerminal(headline(change)))}${escapeForTerminal(inline)}${color.dim(`${prune}${where}`)}`,
      );
      if (change.kind !== 'grant') {
        for (const f of shownFields(change))
          lines.push(`      ${escapeForTerminal(describeField(change, f))}`);
      }
      if (change.refused)
        lines.push(`      ${color.red(escapeForTerminal(`! svc apply refuses this: ${change.refused}`))}`);
    }
  }
  return lines;
}

/** One tab-separated row per change: tenant, kind, verb, name, id, line, what changes; each a cell. */
export function planRows(doc: PlanDocument): string[][] {
  return doc.tenants.flatMap((tenant: PlanTenant) =>
    tenant.changes.map((change) =>
      [
        tenant.slug,
        change.kind,
        change.verb,
        changeLabel(change.kind, change.name),
        change.id ?? '',
        change.line === null ? '' : String(change.line),
        [
          ...shownFields(change).map((f) => describeField(change, f)),
          ...(change.prune ? ['only with --prune'] : []),
          ...(change.last ? [madeLast(change)] : []),
          ...(change.refused ? [`refused: ${change.refused}`] : []),
        ].join('; '),
      ].map(cellText),
    ),
  );
}

const n = (count: number) => count.toLocaleString('en');

/** `Plan: 3 to create, 1 to update, 2 to delete (only with --prune) in 1 of 2 tenants.` */
export function summaryLine(summary: PlanSummary, label: string): string {
  const total = summary.create + summary.update + summary.delete;
  const tenants = `${n(summary.tenants)} ${summary.tenants === 1 ? 'tenant' : 'tenants'}`;
  if (total === 0) return `No changes: the live state of ${tenants} matches ${label}.`;
  const parts = [`${n(summary.create)} to create`, `${n(summary.update)} to update`];
  parts.push(`${n(summary.delete)} to delete${summary.delete > 0 ? ' (only with --prune)' : ''}`);
  return `Plan: ${parts.join(', ')} in ${n(summary.tenants_changed)} of ${tenants}.`;
}
