import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { bodyAsTextDiffers, computeSignature } from '../../webhooks/signature.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import {
  EMPTY_STDIN_WORDS,
  readPayload,
  readSecret,
  SECRET_ENV,
  secretFileFlag,
  unixSecondsFlag,
} from './shared.js';

export interface SignOptions {
  secretFile: string | undefined;
  payload: string;
  at: number | undefined;
}

export function parseSign(flags: Record<string, unknown>): SignOptions {
  return {
    secretFile: secretFileFlag(flags.secretFile),
    payload: flags.payload === undefined ? '-' : nonEmpty('--payload', flags.payload),
    at: unixSecondsFlag('--at', flags.at),
  };
}

export async function runSign(ctx: Context, options: SignOptions): Promise<void> {
  const secret = await readSecret(ctx, options.secretFile);
  const { body, emptyStdin } = await readPayload(ctx, options.payload);
  if (emptyStdin) ctx.out.warn(`${EMPTY_STDIN_WORDS} to sign a file`);
  const differs = bodyAsTextDiffers(body);
  if (differs) {
    ctx.out.warn(
      `the payload ${differs}: svc signs its raw bytes, as the platform does; a verifier that decodes it as text first (stripe-node given a Buffer) will not match`,
    );
  }
  const timestamp = options.at ?? Math.floor(ctx.clock.now() / 1000);
  const signature = computeSignature(secret, timestamp, body);
  const header = `t=${timestamp},v1=${signature}`;
  if (ctx.out.isMachine) return ctx.out.json({ header, timestamp, signature });
  await ctx.out.write(`${header}\n`);
}

export function signCommand(make: MakeContext): Command {
  return new Command('sign')
    .summary('Sign a payload as the platform does')
    .description(
      'Print the X-SVC-Signature value for a payload, t=<unix>,v1=<hex>: HMAC-SHA256 of "t.body" over the raw\n' +
        'bytes exactly as given. `svc webhooks verify` and Stripe-style verifiers accept it, for a UTF-8 body\n' +
        'without a byte-order mark (a verifier that decodes the body as text, as stripe-node does, hashes other\n' +
        'bytes for any other: sign warns). Use it to test a receiver by hand. The secret comes from\n' +
        `--secret-file or ${SECRET_ENV}. Without --payload the body is read from standard input.`,
    )
    .addOption(new Option('--secret-file <file>', `file holding the signing secret (or set ${SECRET_ENV})`))
    .addOption(
      new Option(
        '--payload <file>',
        'the body to sign: FILE, or - for standard input (default); at most 16 MiB',
      ),
    )
    .addOption(new Option('--at <unix-seconds>', 'sign with this timestamp instead of now'))
    .addHelpText(
      'after',
      examples(
        [
          'curl -H "X-SVC-Signature: $(svc webhooks sign --secret-file s --payload e.json)" --data-binary @e.json http://localhost:3000/hook',
          'send a signed event to your receiver',
        ],
        ['svc webhooks sign --secret-file s --payload e.json --at 1700000000', 'a fixed timestamp'],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseSign(flags);
      await runSign(await make(cmd), options);
    });
}
