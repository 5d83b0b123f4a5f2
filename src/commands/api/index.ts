// `svc api`: its options, request and help; its path check, headers, fields and printing are in
// path.ts, headers.ts, fields.ts and print.ts. Past 300 lines: the help's examples and the
// outcome of a lost answer (the key to re-run with) belong to the command itself.
import { Command, Option } from 'commander';
import { redactUrlReference } from '../../api/secret-names.js';
import { closest, didYouMean } from '../../api/suggest.js';
import { bareCommandLine, type CommandLine, commandLine, svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { AuthError, SvcError, UsageError } from '../../errors.js';
import type { HttpMethod, QueryValue } from '../../http/client.js';
import { answerOf, NotFoundError, OutcomeUnknownError } from '../../http/errors.js';
import { redactText } from '../../http/redact.js';
import { quoted } from '../../output/format.js';
import {
  GoneAfterLostAnswerError,
  withMissingTenantHint,
  withUserRequiredHint,
} from '../../platform/errors.js';
import { INPUT_LIMIT, readInputBytes, sayReadingTerminal, strictUtf8 } from '../../system/input.js';
import { shellQuote, shellWord } from '../../system/shell-words.js';
import { parseUserJson } from '../../system/user-json.js';
import { collect, confirmDestructive, examples, type MakeContext } from '../kit.js';
import { KEY_KEPT } from '../replayed-creation.js';
import { callQuestion } from './acts-where.js';
import { bodyFields, queryFields } from './fields.js';
import { headersGiven } from './headers.js';
import { authenticatesItsClient, destructiveCall, tenantOfPath, withoutDotSegments } from './path.js';
import { printBody, printHead, printPages } from './print.js';

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export interface ApiOptions {
  method: HttpMethod;
  path: string;
  rawFields: Array<[string, string]>;
  typedFields: Array<[string, string]>;
  input: string | undefined;
  headers: Record<string, string>;
  paginate: boolean;
  include: boolean;
}

function splitField(flag: string, raw: string): [string, string] {
  const at = raw.indexOf('=');
  if (at <= 0) throw new UsageError(`${flag} takes key=value, got ${quoted(raw)}`);
  return [raw.slice(0, at), raw.slice(at + 1)];
}

/**
 * `svc api PATH` is a GET, as with gh; a method, when given, comes first. Only a GET may leave it
 * out: a request that sends a body names its method, so nothing changes by accident.
 */
function methodAndPath(
  first: string | undefined,
  second: string | undefined,
  svc: CommandLine,
): [string, string] {
  if (first === undefined) throw new UsageError(`svc api needs a path, e.g. ${svc('api /v1/me')}`);
  if (second !== undefined) return [first, second];
  if (METHODS.includes(first.toUpperCase() as HttpMethod)) {
    throw new UsageError(`svc api ${first} needs a path, e.g. ${svc(`api ${first.toUpperCase()} /v1/me`)}`);
  }
  // A lone word near a method (GTE, PSOT), with no leading slash, is a misspelt method far more
  // likely than a top-level path: refused before anything is sent, not sent as GET /GTE.
  const near = /^[a-z]+$/i.test(first) ? closest(first.toUpperCase(), METHODS) : undefined;
  if (near !== undefined) {
    throw new UsageError(
      `unknown HTTP method ${quoted(first)} (did you mean ${near}?) and no path; e.g. ${svc(`api ${near} /v1/me`)}`,
    );
  }
  return ['GET', first];
}

/**
 * `svc api -X POST /v1/me` (curl's and gh's way to give a method): svc takes the method as its
 * first word, so -X/--method is a hidden option refused with the command as svc reads it, a
 * misspelt method (-X PSOT) corrected as the first word's would be.
 */
function refuseMethodOption(
  given: unknown,
  first: string | undefined,
  second: string | undefined,
  svc: CommandLine,
  flag = '-X',
): void {
  if (typeof given !== 'string') return;
  const written = second ?? first;
  const path = written === undefined ? '/v1/me' : shellWord(written);
  const upper = given.toUpperCase() as HttpMethod;
  const known = METHODS.includes(upper);
  const meant = known ? upper : /^[a-z]+$/i.test(given) ? closest(upper, METHODS) : undefined;
  const rule = `svc api takes the method as its first word, not with ${flag}`;
  if (known) throw new UsageError(rule, { hint: `e.g. ${svc(`api ${upper} ${path}`)}` });
  const unknown = `unknown HTTP method ${quoted(given)}`;
  throw new UsageError(
    meant === undefined ? `${unknown}, and ${rule}` : `${unknown} (did you mean ${meant}?), and ${rule}`,
    {
      hint:
        meant === undefined
          ? `use one of ${METHODS.join(', ')}, e.g. ${svc(`api GET ${path}`)}`
          : `e.g. ${svc(`api ${meant} ${path}`)}`,
    },
  );
}

/** curl's body flags, hidden options of svc api refused with the way it takes a body. */
const CURL_BODY_FLAGS = [
  ['data', '-d/--data'],
  ['dataRaw', '--data-raw'],
  ['dataBinary', '--data-binary'],
] as const;

/**
 * `svc api POST /v1/roles -d '{…}'` (curl's way to give a body): refused with the command svc
 * takes, --input (curl's `@FILE` as its FILE) or -f/-F fields; the value itself is never repeated
 * (a body may hold a secret). curl sends such a body with POST: so does the example, unless the
 * first word is a method.
 */
function refuseBodyOption(
  flags: Record<string, unknown>,
  first: string | undefined,
  second: string | undefined,
  svc: CommandLine,
) {
  const given = CURL_BODY_FLAGS.find(([key]) => typeof flags[key] === 'string');
  if (given === undefined) return;
  const [key, flag] = given;
  const value = flags[key] as string;
  const named = first !== undefined && METHODS.includes(first.toUpperCase() as HttpMethod);
  const method = named ? first.toUpperCase() : 'POST';
  const written = named ? second : (second ?? first);
  const path = written === undefined ? '/v1/roles' : shellWord(written);
  const input = value.length > 1 && value.startsWith('@') ? shellWord(value.slice(1)) : 'FILE';
  throw new UsageError(`svc api takes a request body from --input or -f/-F fields, not ${flag}`, {
    hint: `e.g. ${svc(`api ${method} ${path} --input ${input}`)} (--input - reads standard input), or give each field with -f key=value or -F key=JSON`,
  });
}

/**
 * The command line as svc reads it, refused with an example to run instead; `svc` writes that
 * example with the run's -p, --tenant and --base-url (svcCommand), so pasted it acts where this
 * run would have. A test that parses alone gives no run (bareCommandLine).
 */
export function parseApi(
  first: string | undefined,
  second: string | undefined,
  flags: Record<string, unknown>,
  svc: CommandLine = bareCommandLine,
): ApiOptions {
  refuseMethodOption(flags.method, first, second, svc);
  refuseMethodOption(flags.request, first, second, svc, '--request');
  refuseBodyOption(flags, first, second, svc);
  const [method, path] = methodAndPath(first, second, svc);
  const upper = method.toUpperCase() as HttpMethod;
  if (!METHODS.includes(upper))
    throw new UsageError(
      `unknown HTTP method ${quoted(method)}${didYouMean(upper, METHODS)}; use one of ${METHODS.join(', ')}`,
    );
  // An empty or blank PATH was sent as `GET /` and answered "no route GET /", exit 5: a request
  // for a path never given (attack24c F8).
  if (path.trim() === '')
    throw new UsageError('PATH must not be empty', { hint: `e.g. ${svc('api /v1/me')}` });
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
    throw new UsageError('svc api takes a path such as /v1/me, not a URL', {
      hint: 'the base URL comes from --base-url, SVC_BASE_URL or the profile, so your credential only goes there',
    });
  }
  const options: ApiOptions = {
    method: upper,
    path: withoutDotSegments(path.startsWith('/') ? path : `/${path}`),
    rawFields: ((flags.rawField as string[] | undefined) ?? []).map((f) => splitField('-f', f)),
    typedFields: ((flags.field as string[] | undefined) ?? []).map((f) => splitField('-F', f)),
    input: flags.input as string | undefined,
    headers: headersGiven((flags.header as string[] | undefined) ?? []),
    paginate: flags.paginate === true,
    include: flags.include === true,
  };
  if (second === undefined && options.input !== undefined) {
    throw new UsageError(
      `--input sends a body: name the method first, e.g. ${svc('api POST /v1/roles --input -')}`,
    );
  }
  const hasFields = options.rawFields.length + options.typedFields.length > 0;
  if (options.input !== undefined && hasFields && upper !== 'GET') {
    throw new UsageError('--input and -f/-F both give the request body; use one of them');
  }
  if (options.paginate && upper !== 'GET') throw new UsageError('--paginate only works with GET');
  // -i shows one answer's head; --paginate prints the items of many (it printed no head at all).
  if (options.paginate && options.include) {
    throw new UsageError('-i/--include shows one answer; --paginate prints the items of every page: use one');
  }
  return options;
}

/**
 * A platform POST: under /v1, but not to an endpoint that authenticates its client (the OAuth
 * token, revocation and device-authorization endpoints: authenticatesItsClient, one rule for
 * both), whose form bodies take no idempotency key. Only these get one; a sandbox control
 * (/_sandbox) or any other path is sent exactly as given.
 */
export function isPlatformPost(method: HttpMethod, path: string): boolean {
  const bare = path.split(/[?#]/)[0]!;
  return method === 'POST' && bare.startsWith('/v1/') && !authenticatesItsClient(method, bare);
}

/**
 * The body of --input: the bytes as given, but for a JSON object sent to a platform POST, which
 * goes through the client to get its idempotency key, spliced into the text as written (100.50
 * stays 100.50, as does a number a double cannot hold), and so is read by parseUserJson (a key given
 * twice or nesting too deep is refused, as everywhere svc reads a user's JSON).
 * A JSON body (the Content-Type svc sends unless -H gives another) must be UTF-8, and a leading
 * byte-order mark is not part of it.
 */
async function inputBody(
  ctx: Context,
  options: ApiOptions,
): Promise<{ body: unknown } | { raw: { data: Buffer | string; contentType: string } }> {
  const spec = options.input!;
  sayReadingTerminal(ctx, spec, '--input', 'the body', 'it');
  const bytes = await readInputBytes(spec, ctx.io.stdin, '--input', INPUT_LIMIT, ctx.signal);
  const contentType = options.headers['content-type'] ?? 'application/json';
  if (!/json/i.test(contentType)) return { raw: { data: bytes, contentType } };
  const what = `--input ${spec}`;
  const text = strictUtf8(bytes, what);
  if (isPlatformPost(options.method, options.path) && /^\s*\{/.test(text)) {
    let object = true;
    try {
      JSON.parse(text);
    } catch {
      object = false; // sent as given: the server says what is wrong with it
    }
    if (object) return { body: parseUserJson(text, what) };
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return { raw: { data: bom ? bytes.subarray(3) : bytes, contentType } };
}

/** A call's path as the question and its refusal show it (destructiveCall): its query and fields, secrets masked. */
function askedTarget(path: string, fields: Record<string, QueryValue>): string {
  const given = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) given.append(key, String(one));
  }
  const [bare] = path.split('#');
  const extra = given.toString();
  const whole = extra === '' ? bare! : `${bare}${bare!.includes('?') ? '&' : '?'}${extra}`;
  return redactText(redactUrlReference(whole));
}

export async function runApi(ctx: Context, options: ApiOptions): Promise<void> {
  // -i's head is text: with it, --json's "one JSON document" (or --ndjson's lines) would not parse.
  // gh api -i prints the head as text too, whatever follows; svc refuses rather than break --json.
  if (options.include && ctx.out.isMachine) {
    throw new UsageError(
      `-i/--include prints the status line and headers as text, which --${ctx.out.mode} output cannot hold: use one`,
      { hint: 'the body alone is JSON already; --debug shows the status and headers on stderr' },
    );
  }
  // Without a prototype, a key such as __proto__ is a field like any other: sent as given (the
  // server decides), never dropped, and never a way to plant fields (an idempotency_key) unseen.
  const isQuery = options.method === 'GET' || options.method === 'HEAD' || options.method === 'DELETE';
  const fields = isQuery ? {} : await bodyFields(ctx, options);
  const query = isQuery ? await queryFields(ctx, options) : {};
  // A DELETE deletes whatever its path names: the contract's rule for destructive actions (asked
  // on a terminal, --yes elsewhere) holds for the raw call too, as for `webhooks delete` (attack26a
  // F12). gh api asks nothing; svc has one rule for deleting, and a pipe that runs `svc api DELETE`
  // unasked is what it guards against. The path as typed with its query string and the -f/-F
  // fields (`?soft_delete=false` makes a record's DELETE permanent), masked alike in the question
  // and the refusal: a credential-shaped segment, a secret-named query value (review27a F7).
  // A POST that destroys as a verb's does (`oauth rotate-secret`'s) is asked alike (path.ts destructiveCall).
  // The question names the tenant and, for an -H Authorization, who acts, as a verb's does (acts-where.ts).
  const destroys = destructiveCall(options.method, options.path);
  if (destroys !== undefined) {
    const target = `${options.method} ${askedTarget(options.path, query)}`;
    await confirmDestructive(
      ctx,
      () => callQuestion(ctx, target, options.path, options.headers, destroys),
      `sending ${target}`,
    );
  }
  const api = await ctx.api();
  // A header the user gives is sent as given, never replaced by svc's own. An Authorization
  // header is the call's credential: the profile's is then neither needed nor sent.
  const given = (name: string) => (Object.hasOwn(options.headers, name) ? options.headers[name] : undefined);
  // A path that names its tenant (/v1/tenants/{id}/…) is that tenant's call: it goes in
  // X-Tenant-Id, since the profile's would only contradict it (400 tenant_mismatch for a header
  // the user never gave).
  const pathTenant = tenantOfPath(options.path);
  const clientAuth = authenticatesItsClient(options.method, options.path);
  const auth = {
    ...(given('authorization') === undefined && !clientAuth ? {} : { auth: false as const }),
    ...(pathTenant === undefined ? {} : { tenant: pathTenant }),
  };
  // A 400 tenant_header_required gets the fix in svc's terms, as every other command's does; so
  // does a 403 user_required sent with the profile's `svc login --client-id` login.
  const withHint = (error: unknown) =>
    withUserRequiredHint(
      withMissingTenantHint(error, api.config.missingTenantHint),
      'auth' in auth ? undefined : api.config.userRequiredHint,
    );
  if (options.paginate) {
    await printPages(ctx, api, options.path, query, { headers: options.headers, ...auth }).catch(
      (error: unknown) => {
        throw withHint(error);
      },
    );
    return;
  }
  const request = {
    method: options.method,
    path: options.path,
    headers: options.headers,
    ...auth,
    // svc api shows whatever came back, as it came: its text, never its parsed numbers.
    expect: 'text' as const,
    // An Idempotency-Key header is the key of a platform POST, so the body carries the same one.
    idempotencyKey: isPlatformPost(options.method, options.path)
      ? given('idempotency-key')
      : (false as const),
    ...(isQuery ? { query } : {}),
    ...(!isQuery && Object.keys(fields).length > 0 ? { body: fields } : {}),
  };
  if (options.input !== undefined) Object.assign(request, await inputBody(ctx, options));
  try {
    const response = await api.request(request);
    if (response.idempotencyKey && isPlatformPost(options.method, options.path))
      ctx.outputIsOnlyCopyOf(...answerLost(options, response.idempotencyKey, bodyKey(request)));
    if (options.include) await printHead(ctx, response.status, response.headers);
    await printBody(ctx, response.text, response.headers['content-type'], response.notUtf8, response);
  } catch (error) {
    const outcome = failedCall(ctx, options, error, withHint, clientAuth);
    // The error answer as it came, also when it leaves a change's outcome unknown (a 5xx to a POST);
    // a reader gone while it is printed does not make the call a success (declareOutcome).
    const answer = answerOf(error);
    if (answer) {
      if (outcome instanceof SvcError) ctx.out.declareOutcome(outcome);
      if (options.include) await printHead(ctx, answer.status, answer.headers);
      // As it came (every number and key), as a success is; an answer without a body (a HEAD's,
      // always) prints nothing.
      const body = answer.text ?? answer.body ?? '';
      await printBody(ctx, typeof body === 'string' ? body : JSON.stringify(body), 'json', answer.notUtf8);
    }
    throw outcome;
  }
}

/**
 * What a platform POST's answer is, when its output is lost (a full disk, a closed pipe): maybe
 * the only copy of a one-time secret (a client's, a webhook's, an API key), and how to get the
 * same answer again without a second change: the same command under the key it was sent with
 * (review16 R12). A key svc added must be given with -H; one the user gave is in the command.
 */
function answerLost(
  options: ApiOptions,
  key: string,
  inBody: string | undefined,
): [what: string, remedy: string] {
  const path = options.path.split(/[?#]/)[0];
  // The user's own key, given as a header or in the body (-f, -F, --input): the command sends it
  // again as it stands (review16e E3: it was told to add it).
  const own = Object.hasOwn(options.headers, 'idempotency-key') || inBody === key;
  const rerun = own
    ? `run the same command again (its idempotency key ${shellWord(key)})`
    : `run the same command with -H ${shellQuote(`Idempotency-Key: ${key}`)} added (the key it was sent with)`;
  return [
    `POST ${path}'s answer, with any one-time secret in it (a client secret, a signing secret, a key)`,
    `${rerun} within ${KEY_KEPT}: the platform answers with the same answer, secret included, and makes nothing new`,
  ];
}

/** The `idempotency_key` of the body the user gave (-f, -F or --input's JSON object), if any. */
function bodyKey(request: { body?: unknown }): string | undefined {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const key = (body as Record<string, unknown>).idempotency_key;
  return typeof key === 'string' ? key : undefined;
}

/** The error a failed call ends `svc api` with, in svc's words. */
function failedCall(
  ctx: Context,
  options: ApiOptions,
  error: unknown,
  withHint: (error: unknown) => unknown,
  /** The path authenticates an OAuth client (its form or Basic header), not the profile. */
  clientAuth: boolean,
): unknown {
  // The client's credentials (its form or its Basic header) were refused, not the profile's.
  const answer = answerOf(error);
  if (clientAuth && answer?.status === 401) {
    return new AuthError(`the client credentials in the request were rejected: ${answer.message}`, {
      code: answer.code ?? 'invalid_client',
      hint: `${options.path.split('?')[0]} authenticates the OAuth client, not your login: give client_id and client_secret in the form, or -H 'Authorization: Basic BASE64(client_id:client_secret)' without client_secret (one method, not both)`,
      cause: error,
    });
  }
  // Nothing to delete after an attempt whose answer was lost: most likely that attempt deleted
  // it (as the platform verbs say), not "not found".
  if (error instanceof NotFoundError && error.lostAnswer !== undefined && options.method === 'DELETE') {
    return new GoneAfterLostAnswerError(
      error as NotFoundError & { lostAnswer: string },
      commandLine(ctx.settings()),
    );
  }
  // Another refusal after a lost answer is said by the renderer's one rule (refusalAfterLostAnswer).
  return withHint(rerunWithKey(error));
}

/**
 * A change whose outcome is unknown, sent with an idempotency key: the platform answers a re-run
 * under the same key with the same answer, so the hint names it (a user cannot see it otherwise).
 */
function rerunWithKey(error: unknown): unknown {
  if (!(error instanceof OutcomeUnknownError) || error.key === undefined) return error;
  return error.withHint(
    `re-run with -H 'Idempotency-Key: ${error.key}' to get the same answer without making the change twice (the platform keeps it for ${KEY_KEPT})`,
  );
}

export default function api(make: MakeContext): Command {
  return (
    new Command('api')
      .summary('Make an authenticated API request')
      .description(
        "Call any API path with the profile's base URL, credential, tenant and org headers and retries.\n" +
          'A path that names its tenant (/v1/tenants/ID/...) sends that ID as X-Tenant-Id, not the\n' +
          "profile's tenant; a slug there sends no X-Tenant-Id (the header carries ids).\n" +
          'Without a method, GET; a method is the first word (svc api POST PATH), not -X METHOD.\n' +
          "A body comes from --input FILE (- for standard input) or -f/-F fields, not curl's -d.\n" +
          'Fields go in the query string for GET, HEAD and DELETE, and in a JSON\n' +
          'body otherwise: -f sends strings, -F typed JSON values (true, false, null, JSON numbers,\n' +
          '[arrays] and {objects}; anything else is sent as a string, as gh api does: .5, +5, 5., 007,\n' +
          '1_000 and 0x10 are not JSON numbers, so -F amount=+5 sends "+5" (write 0.5, 5, 1000); a query\n' +
          'string gets each as typed: -F amount=100.50 sends 100.50). A field\n' +
          "given twice is sent twice in a query string, refused for a body, and refused when the path's\n" +
          'own query string has it. Fields are sent only as JSON: a body of another type (a form) goes\n' +
          "in a file, --input FILE -H 'Content-Type: ...'. -i goes with neither --paginate nor\n" +
          '--json/--ndjson (its head is text; --debug shows it on stderr).\n' +
          'POSTs under /v1 (but the OAuth endpoints below) get an idempotency key (in the body and the\n' +
          'Idempotency-Key header) unless the body or an -H Idempotency-Key header has one. A key in the body, of any\n' +
          'type, is sent as given (the server decides), and a string one goes in the header too unless\n' +
          '-H gives it; an -H key goes in a body that has none. When the outcome of such a POST is\n' +
          'unknown (its answer lost, or Ctrl-C once it was sent), the error names the key: re-run with\n' +
          "-H 'Idempotency-Key: KEY' to get the same answer. A POST or PATCH without a key is not sent\n" +
          'twice: after a 5xx, a timeout or a dropped connection its outcome is unknown after one attempt.\n' +
          'PUT and DELETE are idempotent: they are sent again (up to 3 retries), as GET is; a DELETE whose\n' +
          'first answer was lost and whose retry finds nothing says the lost attempt most likely deleted it.\n' +
          'A DELETE is destructive, as svc webhooks delete is: on a terminal svc asks first (naming the\n' +
          'path, the tenant, and who acts when -H Authorization gives the credential), elsewhere it needs\n' +
          '--yes (gh api asks nothing; svc keeps its one rule for deleting).\n' +
          'So is a POST to /v1/oauth/clients/ID/rotate-secret, as svc oauth rotate-secret is.\n' +
          'Sandbox controls (/_sandbox) and other\n' +
          'paths are sent as given, and so is an --input file (it must be UTF-8 when it is JSON; a\n' +
          'leading byte-order mark is dropped; a JSON object to a platform POST gets its key put in,\n' +
          'the rest as written: 100.50 stays 100.50, 9007199254740993 too), but a key given twice or\n' +
          'nesting too deep is then refused, as in -F values.\n' +
          'A body of -f/-F fields has each value as typed (-F amount=100.50 sends 100.50).\n' +
          'A header given with -H is sent as given,\n' +
          "never replaced by svc's own: -H 'Authorization: Bearer T' calls as T (the profile's\n" +
          'credential is then neither needed nor sent; T is masked in --debug and, like any credential,\n' +
          'goes over plain http only to loopback); each header is sent once, so a name given twice is\n' +
          'refused. The OAuth endpoints that authenticate the client (/v1/oauth/token, /v1/oauth/revoke,\n' +
          "/v1/oauth/device_authorization) never get the profile's credential: the client proves itself\n" +
          'with client_id and client_secret in the form, or an HTTP Basic header, and no idempotency key;\n' +
          "a 401 there is the client's credentials refused (exit 3), not your login. Field and header\n" +
          'names are sent as given (__proto__ too: the server decides). The\n' +
          'response body is printed as it came (JSON laid out, every key,\n' +
          'string and number as sent; a body that is not UTF-8 as its bytes, or on a terminal as text\n' +
          'with U+FFFD and a warning); --paginate prints an answer that is not a list as it came too,\n' +
          'and the items of a list as JSON values (every number as sent). A path with a "." or ".."\n' +
          'segment (or %2e spellings of one, or "..;x") is refused: a URL (or a server) resolves it\n' +
          'into another endpoint; so is a path with a control character (a URL drops tabs and newlines).',
      )
      .usage('[METHOD] PATH [options]')
      .argument('[method]', `${METHODS.join(', ')}; leave it out for GET`)
      .argument('[path]', 'API path, e.g. /v1/tenants')
      .addOption(
        new Option('-f, --raw-field <key=value>', 'add a string field (repeatable)').argParser(collect),
      )
      .addOption(
        new Option(
          '-F, --field <key=value>',
          'add a typed field: true, false, null, a JSON number (0.5, not .5), JSON [arrays] and {objects}; anything else is a string; @FILE reads a file',
        ).argParser(collect),
      )
      .addOption(
        new Option('--input <file>', 'request body from FILE, or - for standard input (at most 16 MiB)'),
      )
      .addOption(
        new Option('-H, --header <header>', "extra header 'Name: value' (repeatable)").argParser(collect),
      )
      .addOption(new Option('--paginate', 'follow next_cursor and print every item'))
      .addOption(new Option('-i, --include', 'print the status line and response headers first'))
      // curl's (and gh's) spellings, refused with the command svc reads (refuseMethodOption, refuseBodyOption).
      .addOption(new Option('-X, --method <method>').hideHelp())
      .addOption(new Option('--request <method>').hideHelp())
      .addOption(new Option('-d, --data <body>').hideHelp())
      .addOption(new Option('--data-raw <body>').hideHelp())
      .addOption(new Option('--data-binary <body>').hideHelp())
      .addHelpText(
        'after',
        examples(
          ['svc api /v1/me', 'who am I? (GET is the default)'],
          ['svc api GET /v1/tenants -f subscription_tier=pro -F limit=5', 'query parameters'],
          ['svc api GET /v1/tenants --paginate --ndjson', 'every item of every page'],
          ["svc api /v1/me -H 'Authorization: Bearer T'", 'as another credential (T, not the profile)'],
          [
            'echo \'{"name":"ops","permissions":["exception.read"]}\' | svc api POST /v1/roles --input -',
            'a body from stdin (idempotency key added)',
          ],
          [
            'svc api POST /v1/roles -f name=ops -F \'permissions=["exception.read"]\'',
            'a JSON array with -F',
          ],
          [
            "svc api POST /v1/oauth/token -H 'Content-Type: application/x-www-form-urlencoded' --input form.txt",
            'a form body (form.txt: grant_type=refresh_token&client_id=...&client_secret=...&refresh_token=...)',
          ],
          [
            'svc api POST /_sandbox/webhooks/events -f type=exception.sla.breached -f webhook_id=wh_123 -F count=3',
            'a sandbox control (no idempotency key)',
          ],
        ),
      )
      .action(
        async (
          first: string | undefined,
          second: string | undefined,
          flags: Record<string, unknown>,
          cmd: Command,
        ) => {
          // A refusal's example is written from the run's settings when one is refused; the
          // request limits are still checked after the command line (argumentsFirst).
          const ctx = await make(cmd, { argumentsFirst: true });
          const options = parseApi(first, second, flags, (words) => svcCommand(ctx.settings(), words));
          await runApi(await make(cmd), options);
        },
      )
  );
}
