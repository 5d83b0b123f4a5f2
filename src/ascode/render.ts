import type { ChalkInstance } from 'chalk';
import { redactUrlText } from '../api/secret-names.js';
import { cellText, counted, listItemText } from '../output/format.js';
import { withAsciiHost, withAsciiHosts } from '../output/hosts.js';
import { oneLine } from '../output/sanitize.js';
import { sym } from '../output/symbols.js';
import type { FieldChange, PlanChange, PlanDocument, PlanSummary, PlanTenant } from './plan.js';

/**
 * A plan in words: for a person on a terminal (tenants by display name, one line per change
 * with what it changes field by field under it), as tab-separated rows for pipes, and its
 * one-line summary. Everything it returns has been through the one terminal sanitizer (a
 * reviewer reads exactly what is sent: no bidi override reorders a name), and a webhook URL and an
 * OAuth client's redirect URIs are shown with their secrets masked (redactUrlText: a secret query
 * parameter, a credential in the path; the plan document keeps them whole), as svc export warns of
 * them (urlsWithSecrets).
 */

/** A change's name as a label: a webhook's URL with its secrets masked (the export's rule). */
export const changeLabel = (kind: string, name: string): string =>
  kind === 'webhook' ? redactUrlText(name) : name;

/** The field of each kind whose values are URLs, shown masked: a webhook's url, a client's redirect URIs. */
const URL_FIELD: Partial<Record<PlanChange['kind'], string>> = {
  webhook: 'url',
  oauth_client: 'redirect_uris',
};

/** A URL (or a list of them) with its secrets masked; any other value as it is. */
const maskedUrl = (value: unknown): unknown =>
  typeof value === 'string' ? redactUrlText(value) : Array.isArray(value) ? value.map(maskedUrl) : value;

/** A URL field with its two values masked. */
const maskedUrls = (f: FieldChange): FieldChange => ({ ...f, from: maskedUrl(f.from), to: maskedUrl(f.to) });

/** Whether `f` is the field of `change` that holds URLs (URL_FIELD). */
const isUrlField = (change: PlanChange, f: FieldChange): boolean => URL_FIELD[change.kind] === f.field;

/**
 * A change as a row shows it (`svc plan --ndjson`, one line per change, goes to CI logs as apply's
 * rows do): a webhook's URL masked, as its name and in its url field, and a client's redirect
 * URIs. The plan document keeps them.
 */
export function labelledChange(change: PlanChange): PlanChange {
  if (URL_FIELD[change.kind] === undefined) return change;
  return {
    ...change,
    name: changeLabel(change.kind, change.name),
    fields: change.fields.map((f) => (isUrlField(change, f) ? maskedUrls(f) : f)),
  };
}

/**
 * What in a plan is a URL with a secret in it (its saved file is then written 0600), in words, or
 * undefined: a webhook's, in a change or in the scope, which names every webhook the file manages
 * by its URL, one the plan leaves unchanged too (s18 mask18 #4: such a plan was saved with the
 * umask, 0644); a redirect URI of a client a change creates or changes (the scope names clients
 * by name).
 */
export function urlSecretIn(doc: PlanDocument): string | undefined {
  const secret = (value: unknown): boolean =>
    typeof value === 'string' ? redactUrlText(value) !== value : Array.isArray(value) && value.some(secret);
  const inField = (change: PlanChange) =>
    change.fields.some((f) => isUrlField(change, f) && (secret(f.from) || secret(f.to)));
  const changes = doc.tenants.flatMap((tenant) => tenant.changes);
  const webhook =
    doc.tenants.some(
      (tenant) => Array.isArray(tenant.scope.webhooks) && tenant.scope.webhooks.some(secret),
    ) || changes.some((change) => change.kind === 'webhook' && (secret(change.name) || inField(change)));
  if (webhook) return 'a webhook URL';
  return changes.some((change) => change.kind === 'oauth_client' && inField(change))
    ? 'a redirect URI'
    : undefined;
}

const show = (value: unknown): string => {
  if (value === null || value === undefined) return 'never';
  // An item's own comma written %2C (listItemText, the list-cell rule): one item never reads as two.
  if (Array.isArray(value))
    return value.length === 0 ? '(none)' : value.map((v) => listItemText(String(v))).join(', ');
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
  if (f.field === 'grants')
    return typeof f.from === 'number'
      ? `${counted(f.from, 'grant ends', 'grants end')} with it`
      : `${f.from} grants end with it`;
  if (change.action === 'update' && Array.isArray(f.from) && Array.isArray(f.to)) {
    const from = f.from.map(String);
    const to = f.to.map(String);
    // Told apart by their whole values, then shown masked: two URIs can read alike masked.
    const shown = (v: string) => listItemText(isUrlField(change, f) ? redactUrlText(v) : v);
    const added = to.filter((v) => !from.includes(v)).map((v) => `+ ${shown(v)}`);
    const removed = from.filter((v) => !to.includes(v)).map((v) => `${sym.minus} ${shown(v)}`);
    return `${f.field}: ${[...added, ...removed].join(', ')}`;
  }
  return describeValues(isUrlField(change, f) ? maskedUrls(f) : f);
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

/**
 * A change as a person reads it (planLines only): a URL whose host is not ASCII — a webhook's name
 * and url, a client's redirect URIs — with the host a browser reaches beside it (hosts.ts).
 */
function forPeople(change: PlanChange): PlanChange {
  const urls = (f: FieldChange): FieldChange =>
    f.field === 'url' || f.field === 'redirect_uris'
      ? { ...f, from: withAsciiHosts(f.from), to: withAsciiHosts(f.to) }
      : f;
  if (change.kind !== 'webhook' && change.kind !== 'oauth_client') return change;
  const name = change.kind === 'webhook' ? withAsciiHost(change.name) : change.name;
  return { ...change, name, fields: change.fields.map(urls) };
}

/**
 * The lines a terminal shows for a plan; colour only through `color`. svc apply --prune's
 * preview (`pruning`), which makes the removals: they are not marked "only with --prune" (attack29a F7).
 */
export function planLines(doc: PlanDocument, color: ChalkInstance, pruning = false): string[] {
  const lines: string[] = [];
  for (const tenant of doc.tenants) {
    const title = oneLine(`${tenant.display_name} (${tenant.slug})`);
    if (tenant.changes.length === 0) {
      lines.push(`${color.bold(title)}: no changes`);
      continue;
    }
    lines.push(color.bold(title));
    for (const change of tenant.changes.map(forPeople)) {
      const paint =
        change.action === 'create' ? color.green : change.action === 'update' ? color.yellow : color.red;
      const where = change.line === null ? '' : `  (line ${change.line})`;
      const prune = `${change.prune && !pruning ? `  ${sym.dash} only with --prune` : ''}${change.last ? `  ${sym.dash} ${madeLast(change)}` : ''}`;
      const inline =
        change.kind === 'grant' ? `: ${change.fields.map((f) => describeField(change, f)).join('; ')}` : '';
      lines.push(`  ${paint(oneLine(headline(change)))}${oneLine(inline)}${color.dim(`${prune}${where}`)}`);
      if (change.kind !== 'grant') {
        for (const f of shownFields(change)) lines.push(`      ${oneLine(describeField(change, f))}`);
      }
      if (change.refused)
        lines.push(`      ${color.red(oneLine(`! svc apply refuses this: ${change.refused}`))}`);
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

/**
 * `plan: 3 to create, 1 to update, 2 to delete (only with --prune) in 1 of 2 tenants`: an unlabelled
 * line in the house form, a lower-case fragment without a closing full stop (review28b L1).
 */
export function summaryLine(summary: PlanSummary, label: string): string {
  const total = summary.create + summary.update + summary.delete;
  const tenants = `${n(summary.tenants)} ${summary.tenants === 1 ? 'tenant' : 'tenants'}`;
  if (total === 0) return `no changes: the live state of ${tenants} matches ${label}`;
  const parts = [`${n(summary.create)} to create`, `${n(summary.update)} to update`];
  parts.push(`${n(summary.delete)} to delete${summary.delete > 0 ? ' (only with --prune)' : ''}`);
  return `plan: ${parts.join(', ')} in ${n(summary.tenants_changed)} of ${tenants}`;
}
