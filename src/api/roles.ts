/**
 * Plain values about roles shared by the CLI and the sandbox (no schema code, so the CLI bundle
 * does not load TypeBox).
 */

/** Permission strings: dotted lowercase identifiers, e.g. `exception.read`, `rule.write.fx`. */
export const PERMISSION_PATTERN = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$';
export const PERMISSION_RE = new RegExp(PERMISSION_PATTERN);

/** Custom role names: lowercase identifiers, 2 to 64 characters (letters, digits, `_`, `-`). */
export const ROLE_NAME_PATTERN = '^[a-z][a-z0-9_-]{1,63}$';
export const ROLE_NAME_RE = new RegExp(ROLE_NAME_PATTERN);

/**
 * Name prefixes a custom role cannot take, and what each is kept for: `tenant_` and `org_` are
 * kept for built-in roles, so a name alone tells built-in from custom, and `tenant-`/`org-` with
 * them (in a listing `tenant-admin` reads as `tenant_admin`); the prefixes of the platform's ids
 * and secrets, so a name is never mistaken for an id (`role_` for another role's, `usr_` in `svc
 * roles holders usr_admin` for a user's).
 */
const KEPT_FOR: Readonly<Record<string, string>> = {
  tenant_: 'built-in roles',
  org_: 'built-in roles',
  'tenant-': 'built-in roles',
  'org-': 'built-in roles',
  role_: 'role ids',
  usr_: 'user ids',
  key_: 'API key ids',
  svc_: 'API keys',
  cli_: 'OAuth client ids',
  wh_: 'webhook ids',
  whsec_: 'webhook secrets',
  dlv_: 'webhook delivery ids',
  dlq_: 'dead-letter entry ids',
  evt_: 'event ids',
  aud_: 'audit-trail entry ids',
  rec_: 'record ids',
  req_: 'request ids',
};
export const RESERVED_ROLE_PREFIXES: readonly string[] = Object.keys(KEPT_FOR);

/** What a reserved prefix is kept for, said in refusals. */
export const reservedFor = (prefix: string): string => KEPT_FOR[prefix] ?? 'the platform';

/** Whether a reserved prefix belongs to the built-in roles (those are granted, never declared). */
export const isBuiltinPrefix = (prefix: string): boolean => prefix === 'tenant_' || prefix === 'org_';

/** The platform's refusal of a role name with a reserved prefix, in one line naming the rule. */
export function reservedNameRule(prefix: string): string {
  if (prefix.endsWith('-') && reservedFor(prefix) === 'built-in roles') {
    return `role names starting with ${prefix} are kept: they read as built-in roles (${prefix.slice(0, -1)}_…)`;
  }
  return `role names starting with ${prefix} are kept for ${reservedFor(prefix)}`;
}

/** Longest justification the platform keeps with an assignment. */
export const JUSTIFICATION_MAX = 1000;

export type RoleKind = 'builtin' | 'custom';
export type RoleScope = 'tenant' | 'organization';
export const ROLE_KINDS = ['builtin', 'custom'] as const;

/**
 * A role held per organisation, never granted in a tenant: one whose `scope` says so, or
 * org_admin when the server names no scope (a field the reference does not show). Any other role
 * without a scope is the platform's to accept or refuse, not svc's to call an organisation role.
 */
export function isOrganisationRole(role: { id: string; scope?: string | undefined }): boolean {
  return role.scope === undefined ? role.id === 'org_admin' : role.scope === 'organization';
}

/** What a role-assignment record says about its state when read. */
export const ASSIGNMENT_STATUSES = ['active', 'expired', 'revoked', 'role_deleted'] as const;
export type AssignmentStatus = (typeof ASSIGNMENT_STATUSES)[number];

/**
 * Whether an assignment record is in force, by its `status` (a field the reference does not name):
 * absent or `active`, held; a word that says it ended (`expired`, `revoked`, `role_deleted`), not
 * held; any other word, not known — a reader that counts grants says so rather than guess.
 */
export function assignmentInForce(status: unknown): 'held' | 'ended' | 'unknown' {
  if (status === undefined || status === null) return 'held';
  // The words in any case: `ACTIVE` is active (review18b R10).
  const word = typeof status === 'string' ? status.toLowerCase() : status;
  if (word === 'active') return 'held';
  if (word === 'expired' || word === 'revoked' || word === 'role_deleted') return 'ended';
  return 'unknown';
}

/**
 * The one warning line of a grant answered with a status svc does not know (neither active nor an
 * ended word): the grant was made, its status is the server's (review26a L1); else undefined.
 */
export function oddGrantStatus(status: unknown): string | undefined {
  if (assignmentInForce(status) !== 'unknown') return undefined;
  return `the server gives the grant the status ${JSON.stringify(status)}, which svc does not know (it names no ended state)`;
}

/**
 * What a reader that counts grants says of one whose status is 'unknown' (assignmentInForce):
 * neither held nor ended. `whose`: `usr_x's` or `your`.
 */
export function unknownStatusWords(whose: string, role: string, status: unknown): string {
  return `the platform lists ${whose} assignment of ${role} with status ${JSON.stringify(status)}, which svc does not know (held or ended)`;
}

/**
 * Whether a set of held permissions grants `needed`: a permission grants itself and every more
 * specific one below it (`rule.write` grants `rule.write.fx`).
 */
export function grantsPermission(held: Iterable<string>, needed: string): boolean {
  for (const permission of held) {
    if (permission === needed || needed.startsWith(`${permission}.`)) return true;
  }
  return false;
}

/**
 * A role change that both adds and removes one permission says two things at once ("applied
 * atomically" gives neither an order): its refusal, or undefined. svc refuses it before sending
 * (`roles update`), the sandbox on receipt (400 invalid_request), in the same words.
 */
export function addedAndRemoved(add: readonly string[], remove: readonly string[]): string | undefined {
  const both = add.filter((p, i) => remove.includes(p) && add.indexOf(p) === i);
  return both.length > 0 ? `${both.join(', ')} is both added and removed; pick one` : undefined;
}

/**
 * A grant found already as asked (its expiry at the value to be sent, or the grant in place), left
 * as it was: the justification svc was given is then recorded nowhere, since the audit trail keeps
 * the justification of the write that set the grant (session 28's leftover). Two cases, worded and
 * flagged apart (review29c M2): `sent: false`, svc skipped the write (`justification_not_sent`);
 * `sent: true`, the request carrying it was sent and the platform answered with the grant in place
 * (409 assignment_exists, or a 2xx with a grant it did not make: `justification_not_recorded`).
 * The words a skipped row's note adds (`whose`: the file's, the row's) and its flag; undefined when
 * none was given, or the grant in place carries that very one (`held`, when known).
 */
export function justificationNotSent(
  given: string | null | undefined,
  whose: string,
  sent: boolean,
  held?: string | null,
):
  | { words: string; flag: { justification_not_sent: true } | { justification_not_recorded: true } }
  | undefined {
  if (given === null || given === undefined || given.trim() === '') return undefined;
  if (held !== undefined && held !== null && held.trim() === given.trim()) return undefined;
  const trail = `the audit trail keeps the justification of the change that set the grant, not ${whose}`;
  return sent
    ? {
        words: `${whose} justification was sent but not recorded: the platform left the grant in place as it was, and ${trail}`,
        flag: { justification_not_recorded: true },
      }
    : { words: `${whose} justification was not sent: ${trail}`, flag: { justification_not_sent: true } };
}
