// Past 300 lines: the shared kit every verb builds its flags with (numbers, choices, ids,
// idempotency keys, scopes, who a command acts as); one file so that each flag rule exists once.
import type { Command, Option } from 'commander';
import { controlIn, invisibleIn, nonAsciiIn, saysNothing } from '../api/characters.js';
import { redactUrlText } from '../api/secret-names.js';
import { tenantByRef } from '../api/tenant-id.js';
import { decodeJwtClaims } from '../auth/jwt.js';
import { decimal } from '../config/decimal.js';
import { shownSetting } from '../config/settings.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { refuseCredentialAsId } from '../http/path.js';
import { maskSecret, quoted } from '../output/format.js';
import { doneUnread, GoneAfterLostAnswerError } from '../platform/errors.js';
import { tenantWords } from '../platform/tenants-said.js';
import { shellWord } from '../system/shell-words.js';
import { discardTypeAhead } from '../system/type-ahead.js';
import { tenantAsked } from './changed-in.js';
import { type Outcome, type VerdictNoun, verdict } from './verdict.js';

/**
 * Builds (once) the Context for the command being run, from its parsed global flags. Async so
 * that the Context's code is only loaded when a command actually runs (not for --help).
 * `argumentsFirst`: the request limits (--timeout, SVC_TIMEOUT, …) are not read yet, so a command
 * can refuse its arguments with the profile's words before a bad limit is said; the next call
 * without it reads them.
 */
export type MakeContext = (cmd: Command, options?: { argumentsFirst?: boolean }) => Promise<Context>;

/**
 * What every command module exports: a function that builds its commander Command. `verb` is the
 * word after the command's name on the command line (cli-argv.ts verbWord), undefined when there
 * is none or the whole tree is built (help, completions, docs): a group may build only that verb
 * (verbsOnly).
 */
export type CommandFactory = (make: MakeContext, verb?: string) => Command;

/** A group's verb as verbsOnly builds it: its name and aliases (test/commands/lazy-groups.test.ts checks them). */
export type Verb = readonly [names: readonly string[], build: (make: MakeContext) => Command];

/**
 * The verbs of a group a command line runs: only the one `verb` names, when it names one (commander
 * then dispatches to it and reads no other: `svc webhooks verify` built all 13, a third of its
 * in-process cost); every verb otherwise, so the group's help, a missing verb, a typo's "Did you
 * mean" and a default verb's argument see them all.
 */
export function verbsOnly(verbs: readonly Verb[], verb: string | undefined): readonly Verb[] {
  const named = verb === undefined ? undefined : verbs.find(([names]) => names.includes(verb));
  return named ? [named] : verbs;
}

const LIST_VERBS = new WeakSet<Command>();

/**
 * Marks a verb that prints a list (`--json`: an array of the API's objects, `--ndjson`: one per
 * line), for verbs the list-shape test cannot tell by name (`ls`) or flags (`--limit`, `--all`).
 */
export function listVerb(command: Command): Command {
  LIST_VERBS.add(command);
  return command;
}

/** Whether a command prints a list: named `ls`, taking --limit or --all, or marked with listVerb(). */
export function isListVerb(command: Command): boolean {
  return (
    LIST_VERBS.has(command) ||
    command.name() === 'ls' ||
    command.options.some((o) => o.long === '--limit' || o.long === '--all')
  );
}

/** An "Examples:" help section: pairs of [command line, what it does]. */
export function examples(...items: Array<[command: string, description: string]>): string {
  return `\nExamples:\n${items.map(([command, description]) => `  # ${description}\n  $ ${command}`).join('\n\n')}\n`;
}

/** An integer flag in [min, max], checked before any request is made. */
export function intFlag(flag: string, raw: unknown, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = decimal(raw, 'integer');
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got ${quoted(String(raw))}`);
  }
  return value;
}

/** A flag whose value must be one of `choices`. */
export function choiceFlag<T extends string>(
  flag: string,
  raw: unknown,
  choices: readonly T[],
): T | undefined {
  if (raw === undefined) return undefined;
  const value = String(raw);
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} must be one of ${choices.join(', ')}, got ${quoted(value)}`);
  }
  return value as T;
}

/** A non-empty string argument or flag value. */
export function nonEmpty(name: string, raw: unknown): string {
  const value = typeof raw === 'string' ? raw.trim() : '';
  if (value === '') throw new UsageError(`${name} must not be empty`);
  return value;
}

/**
 * A USER argument (an id, or an e-mail a look-up resolves) refused before any request when it
 * holds a control or invisible character, as path`` refuses it when sent (attack27a F6: `roles
 * assign` read the role first, two GETs, and a leading tab was trimmed away unsaid); then not empty.
 */
export function userArg(raw: unknown): string {
  const text = typeof raw === 'string' ? raw : '';
  const wrong =
    controlIn('USER', text, 'type the id again; svc did not send it') ?? invisibleIn('USER', text);
  if (wrong !== undefined) throw new UsageError(wrong, { code: 'invalid_id' });
  return nonEmpty('USER', raw);
}

/**
 * A reason a person writes and others read in the audit trail (`--justification`): not empty, and
 * showing something: only invisible characters (U+200B, a braille blank, an escape sequence) are
 * refused as blank ones are (attack27a F2), by the rule a file's justification follows (saysNothing).
 */
export function reasonFlag(name: string, raw: unknown): string {
  const value = nonEmpty(name, raw);
  const nothing = saysNothing(name, value);
  if (nothing !== undefined)
    throw new UsageError(nothing, { hint: 'write the reason in words; nothing was sent' });
  return value;
}

/**
 * An --idempotency-key (sent as the Idempotency-Key header): not empty, without a control
 * character, which undici refuses to send in a header: before this check that refusal read as
 * "cannot reach … is the server running?" (attack24c F1), and ASCII, the rule of every value svc
 * puts in a header (nonAsciiIn: `ké` went as one Latin-1 byte). Undefined when not given.
 */
export function idempotencyKeyFlag(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  const value = nonEmpty('--idempotency-key', raw);
  const control =
    controlIn('--idempotency-key', value, 'give the key without it; nothing was sent') ??
    nonAsciiIn('--idempotency-key', value, 'give the key in ASCII; nothing was sent');
  if (control !== undefined) throw new UsageError(control, { code: 'invalid_header' });
  return value;
}

/**
 * An id given by a flag that goes into a query string (`audit ls --actor`, `users ls --id`): not
 * empty, not a credential pasted in its place, and without an invisible character (refused before
 * it is sent, as in a path).
 * `wanted` is the id in words: "a user id (usr_…)".
 */
export function idFlag(flag: string, raw: unknown, wanted: string): string {
  const value = nonEmpty(flag, raw);
  refuseCredentialAsId(`${wanted} for ${flag}`, value);
  // A paste's invisible character: refused with it escaped, as in a path (attack21b F7).
  const invisible = invisibleIn(flag, value);
  if (invisible !== undefined) throw new UsageError(invisible, { code: 'invalid_id' });
  return value;
}

/**
 * A repeatable flag given several values in one, joined by commas (`--id usr_a,usr_b`, attack26a
 * F7): where a comma cannot belong to one value (an id; in a redirect URI, before another URI) it
 * was sent as one value that matched nothing, or registered as one URI. Refused, with the fix:
 * the flag once per value (`parts` is how the value splits; none: it is one value after all); for
 * an `argument` (a positional id list), each as its own argument.
 */
export function refuseJoinedValues(flag: string, value: string, parts: string[], argument = false): void {
  if (parts.length < 2) return;
  const redact = (part: string) => (/^https?:/i.test(part) ? redactUrlText(part) : part);
  throw new UsageError(`${flag} ${quoted(redact(value))} is ${parts.length} values joined by commas`, {
    // An argument (`webhooks replay W dlq_a,dlq_b`, attack27a F7): each a word of its own.
    hint: argument
      ? `give each as its own argument: ${parts.map((p) => shellWord(redact(p))).join(' ')}; nothing was sent`
      : `give each its own ${flag}: ${parts.map((p) => `${flag} ${shellWord(redact(p))}`).join(' ')}`,
  });
}

/**
 * Who a call acts as when the command itself gives it a credential other than the run's (`svc api
 * -H 'Authorization: …'`, attack29a F4): `who` as svc can tell it (the id GET /v1/me answered
 * with that credential, a JWT's subject, or words such as "a bearer token"; never the token),
 * `from` where it was given ("-H Authorization"). whereItActs says it in place of SVC_TOKEN's.
 */
export interface ActsAs {
  who: string;
  from: string;
}

/** A question computed when it is asked, with the identity the command acts as when it is not the run's (ActsAs). */
export interface Asked {
  text: string;
  actsAs?: ActsAs | undefined;
}

/**
 * Destructive actions: confirmed at a prompt on a terminal, and refused without --yes when
 * svc cannot ask. The question may be computed lazily (e.g. to show a tenant's display name)
 * so nothing is fetched when no one is asked. `ownWhere`: the question names where it acts
 * itself, which is not the run's profile or server (`profiles rm NAME` acts on NAME's store and
 * revokes at NAME's server; attack26a F3), so the bracket of the run's (whereItActs) is left out.
 */
export async function confirmDestructive(
  ctx: Context,
  question: string | (() => Promise<string | Asked>),
  refusal: string,
  { ownWhere = false }: { ownWhere?: boolean } = {},
): Promise<void> {
  if (ctx.globals.yes) return;
  if (!ctx.canPrompt) {
    throw new UsageError(`${refusal} needs confirmation; pass --yes to confirm non-interactively`);
  }
  const made = typeof question === 'string' ? question : await question();
  const { text: asked, actsAs } = typeof made === 'string' ? { text: made, actsAs: undefined } : made;
  // Only keys typed once the question is shown answer it.
  await discardTypeAhead(ctx.io.stdin);
  const where = ownWhere ? undefined : whereItActs(ctx, asked, actsAs);
  const ok = await ctx.prompter.confirm(where === undefined ? asked : `${asked} ${where}`, false);
  if (!ok) throw new UsageError('cancelled; nothing was changed', { code: 'cancelled' });
}

/**
 * A profile as the ✓ line after a destructive change to the store (`logout`, `profiles rm`, `config
 * unset`) names it, as the question before it does: a user with several profiles sees which one
 * was changed. `shown` is the name as it may be said (masked when it is a credential); `stored` the
 * base_url the profile holds (never a --base-url / SVC_BASE_URL override: the profile was not for
 * it, review17b R17b-3), masked as `profiles ls` shows it (a `?token=` value: R17b-9); `was` once
 * it is unset; nothing in parentheses when the profile holds none.
 */
export function profileAt(shown: string, stored: string | undefined, was = false): string {
  if (stored === undefined) return `profile "${shown}"`;
  return `profile "${shown}" (${was ? 'it was ' : ''}${shownSetting('base_url', stored)})`;
}

/**
 * Where a destructive action acts, when it may not be where the user thinks (F2): prod and staging
 * tenants are copies, so the tenant's name alone does not tell a leftover `SVC_PROFILE=prod`, a
 * `-p` typo or an SVC_BASE_URL from another terminal. Said when the profile was named (-p,
 * SVC_PROFILE) or the base URL overrides a stored profile's (--base-url, SVC_BASE_URL); the
 * active profile's own server is what the user expects and goes unsaid, and so does what the
 * question already names. Who acts is said when SVC_TOKEN replaces a login the profile holds
 * (attack23 F2): the change is made, and audited, as the token's identity, not the profile's; and
 * always when the command was given a credential of its own (`actsAs`: `svc api -H Authorization`).
 */
function whereItActs(ctx: Context, asked: string, actsAs?: ActsAs): string | undefined {
  let settings: ReturnType<Context['settings']>;
  try {
    settings = ctx.settings();
  } catch {
    return undefined;
  }
  const url = settings.values.base_url;
  const named = settings.profileSource === 'flag' || settings.profileSource === 'env';
  const urlSource = settings.sources.base_url;
  const overridden =
    (urlSource === 'flag' || urlSource === 'env') &&
    ctx.store().profile(settings.profile)?.base_url !== undefined;
  const parts: string[] = [];
  // A question that already names both (`sandbox start` replacing a profile) is left as it is.
  const namesBoth = url !== undefined && asked.includes(url) && asked.includes(`"${settings.profile}"`);
  if (url !== undefined && (named || overridden) && !namesBoth) {
    const by = settings.profileSource === 'flag' ? 'from -p' : 'from SVC_PROFILE';
    const profile = `profile "${settings.profile}"${named ? `, ${by}` : ''}`;
    const server = overridden ? `${url} (from ${urlSource === 'flag' ? '--base-url' : 'SVC_BASE_URL'})` : url;
    parts.push(`on ${server}, ${profile}`);
  }
  // SVC_TOKEN alone (a profile without a login of its own, as in CI) is what the user set up.
  const token = ctx.env.SVC_TOKEN?.trim();
  const login = ctx.store().credential(settings.profile) !== undefined;
  if (actsAs !== undefined) {
    // A credential the command was given replaces SVC_TOKEN's, or the profile's login, for this
    // call: it is said whatever the run would have used (attack29a F4: `svc api DELETE -H
    // 'Authorization: Bearer …'` deleted as another user under a question that named none).
    const instead = token
      ? ", not SVC_TOKEN's"
      : login
        ? `, not the login of profile "${settings.profile}"`
        : '';
    parts.push(`as ${actsAs.who} from ${actsAs.from}${instead}`);
  } else if (token && login)
    parts.push(`as ${tokenIdentity(token)} from SVC_TOKEN, not the login of profile "${settings.profile}"`);
  return parts.length === 0 ? undefined : `[${parts.join('; ')}]`;
}

/**
 * Who a token acts as, for a question: a JWT's subject (`usr_lead`) when it is a plain id, else
 * the token masked (`svc_sk_****0123`), never whole. The claim is read unverified: it is the
 * token's own word, which the platform checks; a subject that is no plain id is not printed.
 */
function tokenIdentity(token: string): string {
  return tokenSubject(token) ?? maskSecret(token);
}

/** A JWT's subject when it is a plain id (`usr_lead`), read unverified (the token's own word); else undefined. */
export function tokenSubject(token: string): string | undefined {
  const sub = decodeJwtClaims(token)?.sub;
  return typeof sub === 'string' && plainIdentity(sub) ? sub : undefined;
}

/** An identity's id that may be printed as it is: a plain id, never a credential's shape. */
export const plainIdentity = (id: string): boolean => /^[\w.@:-]{1,64}$/.test(id);

/**
 * Collects a repeatable option's values. It is also what makes an option repeatable: any other
 * option that takes a value is given once (src/cli-options.ts refuses a second).
 */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** An option whose values add up (collect, or variadic) rather than one that takes one value. */
export function isRepeatable(option: Option): boolean {
  return option.variadic || option.parseArg === collect;
}

const SEVERAL_TENANTS = new WeakSet<Command>();

/** Marks a verb that acts in every tenant given (`svc export --tenant a --tenant b`); others take one --tenant. */
export function severalTenants(command: Command): Command {
  SEVERAL_TENANTS.add(command);
  return command;
}

export const takesSeveralTenants = (command: Command): boolean => SEVERAL_TENANTS.has(command);

/** `--scope a --scope b` or `--scope "a b"`: each scope one word. */
export function parseScopes(flag: string, raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw.map(String) : raw === undefined ? [] : [String(raw)];
  const scopes = values.flatMap((v) => v.split(/\s+/)).filter(Boolean);
  if (values.length > 0 && scopes.length === 0) throw new UsageError(`${flag} must not be empty`);
  for (const scope of scopes) {
    if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) {
      throw new UsageError(`${flag} ${JSON.stringify(scope)} is not a valid scope (RFC 6749 §3.3)`);
    }
  }
  return [...new Set(scopes)];
}

/**
 * The tenant a command acts in, as people know it: "Acme Treasury (acme-treasury)", for
 * confirmations. Read from /v1/me only when someone is asked; the ✓ line after it then uses the
 * same words (changed-in.ts tenantAsked).
 */
export async function tenantLabel(ctx: Context): Promise<string> {
  const me = await (await ctx.platform()).me.get();
  const id = ctx.settings().values.tenant ?? me.tenant_id;
  const tenant = id == null ? undefined : tenantByRef(me.tenants, id);
  if (tenant === undefined) return `tenant ${id ?? "(the credential's)"}`;
  // The ✓ line after the question names the tenant in these words too (changed-in.ts).
  const words = tenantWords(tenant);
  tenantAsked(ctx.settings(), words);
  return words;
}

/** What a verb says of a thing its DELETE removed when the answer was lost (see `deleted`). */
export interface GoneReport {
  /** The verb's noun for its request: "revoke", "delete". */
  act: string;
  /** What the retry found gone: "the grant", "the webhook". */
  thing: string;
  /** What the lost attempt most likely did: "revoked", "deleted". */
  done: string;
  /** The line's subject on a terminal: "usr_x no longer holds fx-desk", "webhook wh_1 is gone". */
  subject: string;
  /** What --json prints besides outcome and detail: the ids the verb knows. */
  target: Record<string, unknown>;
  /** The verdict's noun (verdict.ts); its object is null: no answer says what the thing is now. */
  noun: VerdictNoun;
}

/**
 * The answer to a DELETE, or undefined when it was lost and the retry found the thing gone
 * (GoneAfterLostAnswerError): that is said as it is known — gone, most likely by this command —
 * with exit 0, never as "deleted" with details svc does not have, nor as "not found". So is a
 * DELETE answered 200 or 204 without a body, or with one that positively says it was done (another
 * server's: doneUnread, the rule a bulk row's `answered_without_body`/`answered_without_record`
 * follows): done, said as the server said it, never "check".
 */
export async function deleted<T>(ctx: Context, call: Promise<T>, gone: GoneReport): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    let said: Record<string, unknown>;
    if (error instanceof GoneAfterLostAnswerError) {
      said = { outcome: 'gone_after_lost_answer', detail: error.explain(gone.act, gone.thing, gone.done) };
    } else if (doneUnread(error)) {
      // As a bulk row says it (runner.ts): no body, or `{}` / `{"deleted":true}` / a part of the record saying it is gone.
      // Its answer said so positively (review19d F6), not merely nothing against it.
      const detail = error.bodyless
        ? `the server answered HTTP ${error.status} without a body, which says it was ${gone.done}`
        : `the server answered HTTP ${error.status} that it was ${gone.done}, in a shape other than the record svc reads`;
      said = {
        outcome: error.bodyless ? 'answered_without_body' : 'answered_without_record',
        status_code: error.status,
        detail,
      };
    } else throw error;
    const { outcome, ...more } = said as { outcome: Outcome } & Record<string, unknown>;
    if (ctx.out.isMachine) await ctx.out.json(verdict(outcome, gone.noun, null, { ...gone.target, ...more }));
    else ctx.out.success(`${gone.subject}: ${said.detail}`);
    return undefined;
  }
}
