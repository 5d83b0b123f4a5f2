import { type Command, Option } from 'commander';
import {
  RECORD_OWNED_FIELDS,
  RESERVED_SURFACES,
  SURFACE_LENGTH,
  SURFACE_PATTERN,
} from '../../api/constants.js';
import { numberAsItCame, withNumbersOf } from '../../api/numbers-as-they-came.js';
import { RECORD_SURFACES } from '../../api/operations.js';
import { closest } from '../../api/suggest.js';
import { type CommandLine, commandLine, svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { ApiError, NotFoundError } from '../../http/errors.js';
import { jsonCellText, quoted } from '../../output/format.js';
import type { Field } from '../../output/output.js';
import { RecordDeletedError, RecordNotFoundError, retyped } from '../../platform/errors.js';
import { INPUT_LIMIT, readInputBytes, sayReadingTerminal } from '../../system/input.js';
import { shellWord } from '../../system/shell-words.js';
import { parseUserJson } from '../../system/user-json.js';
import { nonEmpty, tenantLabel } from '../kit.js';

export type RecordData = Record<string, unknown> & {
  id: string;
  created_at?: string;
  updated_at?: string;
  soft_delete?: boolean;
  deleted_at?: string | null;
  purge_at?: string | null;
};

export function checkSurface(raw: string): string {
  const surface = nonEmpty('SURFACE', raw);
  if (!SURFACE_PATTERN.test(surface)) {
    const { min, max } = SURFACE_LENGTH;
    // Refused for its length alone: say so, not which characters it may have (it has them).
    const problem = /^[a-z][a-z0-9_]*$/.test(surface)
      ? `it has ${surface.length} character${surface.length === 1 ? '' : 's'}, and a surface name has ${min} to ${max}`
      : `use ${min} to ${max} lowercase letters, digits and _, starting with a letter`;
    throw new UsageError(`invalid surface ${quoted(surface)}: ${problem}, e.g. reconciliations`);
  }
  if ((RESERVED_SURFACES as readonly string[]).includes(surface)) {
    throw new UsageError(
      `"${surface}" is not a record surface; it has its own commands (see \`svc --help\`)`,
    );
  }
  return surface;
}

const DOCUMENTED = Object.keys(RECORD_SURFACES);

/**
 * A record call's failure in the words of surfaces: a 404 for a surface that is not one of the
 * documented ones names them (the server's own guess is a route), a 405 on a read-only one
 * says how to read it, and a 409 record_deleted says what can be done instead. Other errors pass as they are (another server may have other surfaces).
 */
/** `did you mean X? ` for a typo of a documented surface (the server's 404 said it has none such). */
function meantSurface(surface: string): string {
  const meant = closest(surface, DOCUMENTED);
  return meant === undefined ? '' : `did you mean ${meant}? `;
}

export async function onSurface<T>(ctx: Context, surface: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const init = (message: string) => ({
      status: error.status,
      code: error.code,
      message,
      requestId: error.requestId,
      details: error.details,
      headers: error.headers,
      body: error.body,
      text: error.text,
    });
    if (error.status === 404 && !DOCUMENTED.includes(surface)) {
      throw new NotFoundError(init(`no record surface "${surface}" on this server`), {
        hint: `${meantSurface(surface)}the documented surfaces are ${DOCUMENTED.join(', ')}`,
        cause: error,
      });
    }
    if (error instanceof RecordNotFoundError) {
      throw retyped(error, RecordNotFoundError, await lookedIn(ctx, surface));
    }
    if (error instanceof RecordDeletedError && !error.hint) {
      throw retyped(error, RecordDeletedError, deletedRecordHint(commandLine(ctx.settings()), surface));
    }
    if (error.status === 405 && RECORD_SURFACES[surface]?.write === null) {
      throw new ApiError(init(error.message), {
        hint: `${surface} is read-only: read it with \`${svcCommand(ctx.settings(), `records ls ${shellWord(surface)}`)}\`${surface === 'audit_trail' ? ` or \`${svcCommand(ctx.settings(), 'audit ls')}\`` : ''}`,
        cause: error,
      });
    }
    throw error;
  }
}

/** The fix half of "record … is deleted" (409 record_deleted, or svc's own from the record it read). */
export const deletedRecordHint = (line: CommandLine, surface: string): string =>
  `a deleted record cannot be changed; \`${line(`records create ${shellWord(surface)} --data JSON`)}\` makes a new one`;

/**
 * The fix half of a record's "not found": the tenant it was looked for in (an id of another
 * tenant is "not found" too) and the list of its surface there.
 */
async function lookedIn(ctx: Context, surface: string): Promise<string> {
  const list = `see \`${svcCommand(ctx.settings(), `records ls ${shellWord(surface)}`)}\` for its records, --tenant for another tenant's`;
  try {
    return `looked for in ${await tenantLabel(ctx)}: ${list}`;
  } catch {
    const tenant = ctx.settings().values.tenant;
    return tenant === undefined ? list : `looked for in tenant ${tenant}: ${list}`;
  }
}

/** --data JSON or --data-file FILE|- : one JSON object, read by parseUserJson (sent as meant, or refused). */
export async function readData(
  ctx: Context,
  flags: Record<string, unknown>,
  required: boolean,
): Promise<Record<string, unknown> | undefined> {
  if (flags.data !== undefined && flags.dataFile !== undefined)
    throw new UsageError('--data and --data-file both give the data; use one');
  let input: string | Buffer;
  let from: string;
  if (flags.data !== undefined) {
    input = String(flags.data);
    from = '--data';
  } else if (flags.dataFile !== undefined) {
    from = `--data-file ${flags.dataFile}`;
    sayReadingTerminal(ctx, String(flags.dataFile), '--data-file', 'the record as JSON', 'it');
    input = await readInputBytes(
      String(flags.dataFile),
      ctx.io.stdin,
      '--data-file',
      INPUT_LIMIT,
      ctx.signal,
    );
  } else {
    if (required) throw new UsageError('give the record as --data JSON or --data-file FILE (- for stdin)');
    return undefined;
  }
  const value = parseUserJson(input, from);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${from} must be a JSON object, e.g. '{"name":"March close"}'`);
  }
  return value as Record<string, unknown>;
}

/** The record's own fields (not the platform's), their numbers as they came. */
export function ownFields(record: RecordData): Record<string, unknown> {
  return withNumbersOf(
    record,
    Object.fromEntries(
      Object.entries(record).filter(([k]) => !(RECORD_OWNED_FIELDS as readonly string[]).includes(k)),
    ),
  );
}

/** The label a record's own field is shown under: apart from svc's lines, so none can pose as one. */
export const OWN_FIELD_PREFIX = 'field.';

/**
 * A record for people and pipes: the platform's fields under fixed labels, always in this order
 * (deleted and purge at empty while the record is live; a terminal leaves them out; lines of
 * fields the answer does not hold at all are left out everywhere), then each
 * of the record's own fields as `field.NAME`. A record with a field named "deleted" so never
 * looks deleted, and a pipe gets the same system lines whatever the record's state.
 */
function recordFields(record: RecordData): Field[] {
  const deleted = record.deleted_at ?? (record.soft_delete ? 'yes (no time given)' : null);
  const all: Array<[Field, boolean]> = [
    [['id', record.id], true],
    [['surface', record.surface], true],
    [['tenant', record.tenant_id], true],
    [['created', record.created_at, 'time', 'optional'], answers(record, 'created_at')],
    [['created by', record.created_by, 'text', 'optional'], answers(record, 'created_by')],
    [['updated', record.updated_at, 'time'], true],
    [
      ['deleted', deleted, record.deleted_at ? 'time' : 'text', 'optional'],
      answers(record, 'deleted_at', 'soft_delete'),
    ],
    // The purge is ahead while the record can be read at all: "purge at", never "purged".
    [['purge at', record.purge_at, 'time', 'optional'], answers(record, 'purge_at')],
  ];
  // A field the answer does not hold (the answer to a change of a record the caller cannot read
  // holds only what was sent: review16d D5) is no line, not an empty one that reads "not deleted".
  const fields = all.filter(([, shown]) => shown).map(([field]) => field);
  // Numbers as the platform wrote them: 9007199254740993 is not shown as 9007199254740992. A
  // string is shown as it is, unless it reads as JSON ("12.50", "null", "true", "[]"): then as
  // the JSON string, so a line tells the string "null" from null (attack27b F7). Any other cell
  // that parses as JSON is that JSON value; one that does not is the string itself.
  for (const [key, value] of Object.entries(ownFields(record))) {
    const text =
      typeof value === 'string'
        ? readsAsJson(value)
          ? jsonCellText(value)
          : value
        : (numberAsItCame(record, key, value) ?? jsonCellText(value));
    fields.push([`${OWN_FIELD_PREFIX}${key}`, text]);
  }
  return fields;
}

/** Whether text parses as JSON (a string that would be read as another value if shown bare). */
function readsAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether the answer holds any of these fields of the platform's (a record read holds them all). */
const answers = (record: RecordData, ...keys: string[]) => keys.some((k) => Object.hasOwn(record, k));

/**
 * The record read, or undefined when the caller may not read it (403 insufficient_role): one who
 * may change it all the same (exception.assign alone, write without read) sends the change
 * unread, and the platform answers only what the change did (records update, records delete).
 */
export async function unlessUnreadable(read: Promise<RecordData>): Promise<RecordData | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof ApiError && error.status === 403 && error.code === 'insufficient_role')
      return undefined;
    throw error;
  }
}

export async function show(ctx: Context, record: RecordData): Promise<void> {
  await ctx.out.record(record, recordFields(record));
}

export const dataOptions = (command: Command) =>
  command
    .addOption(new Option('--data <json>', 'the fields as a JSON object'))
    .addOption(
      new Option(
        '--data-file <file>',
        'the fields from a JSON file, or - for standard input (at most 16 MiB)',
      ),
    );
