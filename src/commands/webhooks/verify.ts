import { Command, Option } from 'commander';
import { isoSeconds } from '../../api/time.js';
import type { Context } from '../../context.js';
import { SvcError, UsageError } from '../../errors.js';
import { sym } from '../../output/symbols.js';
import { readSecretInputBytes, SECRET_INPUT_LIMIT, unusualEncoding, utf16Words } from '../../system/input.js';
import {
  clockOffsetText,
  DEFAULT_TOLERANCE_SECONDS,
  explainMismatch,
  signatureFromHeaderText,
  skippedText,
  type VerifyResult,
  verifySignature,
} from '../../webhooks/signature.js';
import { examples, intFlag, type MakeContext, nonEmpty } from '../kit.js';
import {
  EMPTY_STDIN_WORDS,
  type Payload,
  readPayload,
  readSecret,
  SECRET_ENV,
  secretFileFlag,
  unixSecondsFlag,
} from './shared.js';

export interface VerifyOptions {
  secretFile: string | undefined;
  header: string | undefined;
  headerFile: string | undefined;
  payload: string;
  toleranceSeconds: number;
  at: number | undefined;
}

const MAX_TOLERANCE = 10 * 365 * 86_400;

export function parseVerify(flags: Record<string, unknown>): VerifyOptions {
  const header = flags.header === undefined ? undefined : String(flags.header);
  const headerFile = flags.headerFile === undefined ? undefined : nonEmpty('--header-file', flags.headerFile);
  if (header === undefined && headerFile === undefined) {
    throw new UsageError('give the X-SVC-Signature value with --header VALUE or --header-file FILE');
  }
  if (header !== undefined && headerFile !== undefined) {
    throw new UsageError('--header and --header-file both give the signature header; use one of them');
  }
  const payload = flags.payload === undefined ? '-' : nonEmpty('--payload', flags.payload);
  if (payload === '-' && headerFile === '-') {
    throw new UsageError('--header-file - and the payload cannot both come from standard input', {
      hint: 'pass the payload with --payload FILE',
    });
  }
  return {
    secretFile: secretFileFlag(flags.secretFile),
    header,
    headerFile,
    payload,
    toleranceSeconds: intFlag('--tolerance', flags.tolerance, 0, MAX_TOLERANCE) ?? DEFAULT_TOLERANCE_SECONDS,
    at: unixSecondsFlag('--at', flags.at),
  };
}

/** --header-file: the value, its line, or a captured request head with one X-SVC-Signature line. */
async function headerFromFile(ctx: Context, file: string): Promise<string> {
  const bytes = await readSecretInputBytes(
    file,
    ctx.io.stdin,
    '--header-file',
    SECRET_INPUT_LIMIT,
    ctx.signal,
  );
  const unusual = unusualEncoding(bytes);
  if (unusual && unusual.encoding !== 'UTF-8 with a byte-order mark')
    throw new UsageError(`--header-file ${file} is ${utf16Words(unusual.encoding)}`);
  const text = unusual?.text ?? bytes.toString('utf8');
  const found = signatureFromHeaderText(text);
  if ('header' in found) return found.header;
  throw new UsageError(`--header-file ${file}: ${found.problem}`, {
    hint: 'give the X-SVC-Signature value, its header line, or the .headers file `svc webhooks listen --capture` wrote',
  });
}

/** The --json result: the contract's {valid, reason, timestamp}, with details. */
export interface VerifyReport {
  valid: boolean;
  reason: VerifyResult['reason'] | 'unreadable_input';
  timestamp: number | null;
  matched?: number;
  /** v1 values skipped as unreadable (1-based, counting every v1). */
  skipped?: number[];
  age_seconds?: number;
  tolerance_seconds?: number;
  message?: string;
}

export async function runVerify(ctx: Context, options: VerifyOptions): Promise<void> {
  // The verdict quotes the header, which may hold the secret itself (--header-file given the
  // secret file): stdout is masked as stderr is.
  ctx.out.maskSecretsOnStdout();
  const machine = ctx.out.isMachine;
  let secret: Buffer;
  let header: string;
  let payload: Payload;
  try {
    secret = await readSecret(ctx, options.secretFile);
    header = options.header ?? (await headerFromFile(ctx, options.headerFile!));
    payload = await readPayload(ctx, options.payload);
  } catch (error) {
    if (machine) {
      // The verdict is the exit code, whether or not its reader is still there to see it.
      if (error instanceof SvcError) ctx.out.declareOutcome(error);
      await ctx.out.json({
        valid: false,
        reason: 'unreadable_input',
        timestamp: null,
        message: error instanceof Error ? error.message : String(error),
      } satisfies VerifyReport);
    }
    throw error;
  }
  const body = payload.body;
  const nowSeconds = options.at ?? Math.floor(ctx.clock.now() / 1000);
  const result = verifySignature(body, header, secret, {
    toleranceSeconds: options.toleranceSeconds,
    nowSeconds,
  });
  const report: VerifyReport = {
    valid: result.valid,
    reason: result.reason,
    timestamp: result.timestamp,
    ...(result.matched ? { matched: result.matched } : {}),
    ...(result.skipped ? { skipped: result.skipped } : {}),
    ...(result.age === undefined
      ? {}
      : { age_seconds: result.age, tolerance_seconds: options.toleranceSeconds }),
    ...(result.message ? { message: result.message } : {}),
  };
  const skipped = result.skipped ? ` (${skippedText(result.skipped)})` : '';
  // The verdict is the exit code, whether or not the reader of --json is still there to see it.
  const failure = verdictError(result, options, skipped, () =>
    payload.emptyStdin ? EMPTY_STDIN_WORDS : (explainMismatch(body, header, secret) ?? ''),
  );
  ctx.out.declareOutcome(failure);
  if (machine) await ctx.out.json(report);
  if (failure) throw failure;
  if (!machine) {
    await ctx.out.text(
      `valid: signed at ${isoSeconds(result.timestamp! * 1000)} (${clockOffsetText(result.age!)}), v1 signature ${result.matched} matched${skipped}`,
    );
  }
}

/** The error of a verdict that is not valid (exit 2, 8 or 9); undefined for a valid signature. */
function verdictError(
  result: VerifyResult,
  options: VerifyOptions,
  skipped: string,
  mismatchCause: () => string,
): SvcError | undefined {
  switch (result.reason) {
    case 'valid':
      return undefined;
    case 'malformed_header':
      return new UsageError(`malformed signature header: ${result.message}`, {
        code: 'malformed_header',
        hint: `expected X-SVC-Signature: t=<unix seconds>,v1=<64 hex digits>[,v1=${sym.ellipsis}]`,
      });
    case 'signature_mismatch':
      return new SvcError('signature_mismatch', 'the signature does not match the payload', {
        code: 'signature_mismatch',
        hint: `${mismatchCause()}${skipped}`.trim(),
      });
    case 'timestamp_outside_tolerance':
      return new SvcError(
        'signature_tolerance',
        `the signature is valid but its timestamp ${result.timestamp} (${isoSeconds(result.timestamp! * 1000)}) is ${clockOffsetText(result.age!)}, outside the tolerance of ${options.toleranceSeconds} s`,
        {
          code: 'timestamp_outside_tolerance',
          hint: 'a delayed or replayed request, or a wrong clock; --at UNIX_SECONDS verifies as of another time, --tolerance widens the window',
        },
      );
  }
}

export function verifyCommand(make: MakeContext): Command {
  return new Command('verify')
    .summary('Verify a signed webhook payload')
    .description(
      'Verify an X-SVC-Signature header against the raw payload bytes, exactly as given (nothing added or\n' +
        'stripped): HMAC-SHA256 of "t.body" with the secret, compared in constant time with every v1 of the\n' +
        `header (one per secret still signing: up to 6 after rotations; one that is not 64 hex digits is skipped, as Stripe does), and\n` +
        `the timestamp within ±${DEFAULT_TOLERANCE_SECONDS} s of the clock.\n` +
        `The secret comes from --secret-file (its bytes) or ${SECRET_ENV} (its UTF-8 encoding), used\n` +
        'exactly as given: any bytes, one final newline removed.\n\n' +
        'Exit codes: 0 valid, 8 signature does not match, 9 timestamp outside the tolerance, 2 malformed\n' +
        'header or unreadable input. --json prints {"valid","reason","timestamp",…} on stdout.',
    )
    .addOption(new Option('--secret-file <file>', `file holding the signing secret (or set ${SECRET_ENV})`))
    .addOption(new Option('--header <value>', 'the X-SVC-Signature value, e.g. t=1700000000,v1=5257a8…'))
    .addOption(
      new Option(
        '--header-file <file>',
        'read the header from FILE (- for standard input): the value, its line, or a captured .headers file',
      ),
    )
    .addOption(
      new Option(
        '--payload <file>',
        'the raw request body: FILE, or - for standard input (default); at most 16 MiB',
      ),
    )
    .addOption(
      new Option(
        '--tolerance <seconds>',
        `allowed clock difference, both ways (default ${DEFAULT_TOLERANCE_SECONDS}; 0: no check)`,
      ),
    )
    .addOption(new Option('--at <unix-seconds>', 'verify as of this time instead of now'))
    .addHelpText(
      'after',
      examples(
        [
          'svc webhooks verify --secret-file whsec.txt --header "$SIG" --payload body.json',
          'verify a captured request',
        ],
        [
          'SVC_WEBHOOK_SECRET=whsec_… svc webhooks verify --header "$SIG" < body.json',
          'the payload from standard input, the secret from the environment',
        ],
        [
          'svc webhooks verify --secret-file s --header "$SIG" --payload b --at 1700000000 --json',
          'as of a fixed time, as JSON',
        ],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseVerify(flags);
      await runVerify(await make(cmd), options);
    });
}
