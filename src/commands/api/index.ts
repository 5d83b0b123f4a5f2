import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { HttpMethod, QueryValue } from '../../http/client.js';
import { ApiError } from '../../http/errors.js';
import { readInputBytes } from '../../system/input.js';
import { examples, type MakeContext } from '../kit.js';

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
  if (at <= 0) throw new UsageError(`${flag} takes key=value, got ${JSON.stringify(raw)}`);
  return [raw.slice(0, at), raw.slice(at + 1)];
}

function splitHeader(raw: string): [string, string] {
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(raw);
  if (!match) throw new UsageError(`-H takes 'Name: value', got ${JSON.stringify(raw)}`);
  return [match[1]!.toLowerCase(), match[2]!];
}

export function parseApi(method: string, path: string, flags: Record<string, unknown>): ApiOptions {
  const upper = method.toUpperCase() as HttpMethod;
  if (!METHODS.includes(upper))
    throw new UsageError(`unknown HTTP method ${JSON.stringify(method)}; use one of ${METHODS.join(', ')}`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
    throw new UsageError('svc api takes a path such as /v1/me, not a URL', {
      hint: 'the base URL comes from --base-url, SVC_BASE_URL or the profile, so your credential only goes there',
    });
  }
  const options: ApiOptions = {
    method: upper,
    path: path.startsWith('/') ? path : `/${path}`,
    rawFields: ((flags.rawField as string[] | undefined) ?? []).map((f) => splitField('-f', f)),
    typedFields: ((flags.field as string[] | undefined) ?? []).map((f) => splitField('-F', f)),
    input: flags.input as string | undefined,
    headers: Object.fromEntries(((flags.header as string[] | undefined) ?? []).map(splitHeader)),
    paginate: flags.paginate === true,
    include: flags.include === true,
  };
  const hasFields = options.rawFields.length + options.typedFields.length > 0;
  if (options.input !== undefined && hasFields && upper !== 'GET') {
    throw new UsageError('--input and -f/-F both give the request body; use one of them');
  }
  if (options.paginate && upper !== 'GET') throw new UsageError('--paginate only works with GET');
  return options;
}

async function typedValue(ctx: Context, raw: string): Promise<unknown> {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (raw.startsWith('@')) return (await readInputBytes(raw.slice(1), ctx.io.stdin, '-F')).toString('utf8');
  return raw;
}

async function printBody(ctx: Context, text: string, contentType: unknown): Promise<void> {
  if (text === '') return;
  const isJson = typeof contentType === 'string' ? contentType.includes('json') : /^[[{]/.test(text.trim());
  if (isJson) {
    try {
      return await ctx.out.json(JSON.parse(text));
    } catch {
      // fall through: print as given
    }
  }
  await ctx.out.raw(text.endsWith('\n') ? text : `${text}\n`);
}

export async function runApi(ctx: Context, options: ApiOptions): Promise<void> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of options.rawFields) fields[key] = value;
  for (const [key, value] of options.typedFields) fields[key] = await typedValue(ctx, value);
  const api = await ctx.api();
  if (options.paginate) {
    await ctx.out.jsonList(
      api.paginate(options.path, fields as Record<string, QueryValue>, { headers: options.headers }),
    );
    return;
  }
  const isQuery = options.method === 'GET' || options.method === 'HEAD' || options.method === 'DELETE';
  const request = {
    method: options.method,
    path: options.path,
    headers: options.headers,
    // svc api shows whatever came back, as it came.
    expect: 'raw' as const,
    ...(isQuery ? { query: fields as Record<string, QueryValue> } : {}),
    ...(!isQuery && Object.keys(fields).length > 0 ? { body: fields } : {}),
  };
  if (options.input !== undefined) {
    const bytes = await readInputBytes(options.input, ctx.io.stdin, '--input');
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    // A JSON object body goes through the client so a POST gets its idempotency key; anything else is sent as is.
    Object.assign(
      request,
      parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
        ? { body: parsed }
        : { raw: { data: bytes, contentType: options.headers['content-type'] ?? 'application/json' } },
    );
  }
  try {
    const response = await api.request(request);
    if (options.include) await printHead(ctx, response.status, response.headers);
    await printBody(ctx, response.text, response.headers['content-type']);
  } catch (error) {
    if (error instanceof ApiError) {
      if (options.include) await printHead(ctx, error.status, error.headers);
      await printBody(
        ctx,
        typeof error.body === 'string' ? error.body : JSON.stringify(error.body ?? ''),
        'json',
      );
    }
    throw error;
  }
}

async function printHead(
  ctx: Context,
  status: number,
  headers: Record<string, string | string[] | undefined>,
) {
  await ctx.out.raw(`HTTP ${status}\n`);
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value])
      if (v !== undefined) await ctx.out.raw(`${name}: ${v}\n`);
  }
  await ctx.out.raw('\n');
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export default function api(make: MakeContext): Command {
  return new Command('api')
    .summary('Make an authenticated API request')
    .description(
      "Call any API path with the profile's base URL, credential, tenant and org headers, retries\n" +
        'and idempotency keys. Fields go in the query string for GET, HEAD and DELETE, and in a JSON\n' +
        'body otherwise. The response body is printed as it came (JSON pretty-printed).',
    )
    .argument('<method>', METHODS.join(', '))
    .argument('<path>', 'API path, e.g. /v1/tenants')
    .addOption(
      new Option('-f, --raw-field <key=value>', 'add a string field (repeatable)').argParser(collect),
    )
    .addOption(
      new Option(
        '-F, --field <key=value>',
        'add a typed field: true, false, null, numbers; @FILE reads a file',
      ).argParser(collect),
    )
    .addOption(new Option('--input <file>', 'request body from FILE, or - for standard input'))
    .addOption(
      new Option('-H, --header <header>', "extra header 'Name: value' (repeatable)").argParser(collect),
    )
    .addOption(new Option('--paginate', 'follow next_cursor and print every item'))
    .addOption(new Option('-i, --include', 'print the status line and response headers first'))
    .addHelpText(
      'after',
      examples(
        ['svc api GET /v1/me', 'who am I?'],
        ['svc api GET /v1/tenants -f subscription_tier=pro -F limit=5', 'query parameters'],
        ['svc api GET /v1/tenants --paginate --ndjson', 'every item of every page'],
        [
          'echo \'{"name":"ops"}\' | svc api POST /v1/roles --input -',
          'a body from stdin (idempotency key added)',
        ],
      ),
    )
    .action(async (method: string, path: string, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseApi(method, path, flags);
      await runApi(await make(cmd), options);
    });
}
