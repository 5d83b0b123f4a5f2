import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { sym } from '../output/symbols.js';
import { readSecretInputBytes, readSecretStdin, SECRET_INPUT_LIMIT, secretText } from '../system/input.js';
import { controlCharacterIn, secretFromText } from '../system/secret-text.js';
import { pathWord } from '../system/shell-words.js';

/**
 * Secrets never come from a flag's value: from a file (`--NAME-file F`), standard input
 * (`--NAME-stdin`), an environment variable, or a hidden prompt on a terminal.
 */
export interface SecretFlags {
  file?: string | undefined;
  stdin?: boolean | undefined;
}

/** Checks the flags of one secret (before any I/O). */
export function checkSecretFlags(name: string, flags: SecretFlags): SecretFlags {
  if (flags.file !== undefined && flags.stdin) {
    throw new UsageError(`--${name}-file and --${name}-stdin cannot be combined; pick one`);
  }
  if (flags.file !== undefined && String(flags.file).trim() === '') {
    throw new UsageError(`--${name}-file needs a path`);
  }
  return flags;
}

/**
 * A token or client secret from text (secret-text.ts: one final newline removed, other
 * surrounding whitespace removed with a warning), registered so that nothing svc prints
 * afterwards can show it.
 */
export function cleanSecret(ctx: Context, name: string, from: string, raw: string): string {
  const { secret, warning } = secretFromText(raw, from, { trim: true });
  if (secret.trim() === '') throw new UsageError(`${from} is empty; it must hold the ${name}`);
  if (/\s/.test(secret))
    throw new UsageError(`${from} contains whitespace; it must hold exactly one ${name}`);
  const control = controlCharacterIn(secret);
  if (control) throw new UsageError(`${from} contains ${control}; it must hold exactly one ${name}`);
  ctx.secrets.add(secret);
  if (warning) ctx.out.warn(warning);
  return secret;
}

export interface ReadSecretOptions {
  /** `client-secret` → --client-secret-file, --client-secret-stdin. */
  name: string;
  /** Words for messages: "client secret". */
  label: string;
  env?: string;
  /** Ask on a terminal when no other source gave one. */
  prompt?: boolean;
  /** Fail (exit 2) when there is none. */
  required?: boolean;
}

/**
 * The sources (`file:PATH`, `env:NAME`) each run read a secret from exactly as a shell reads them
 * again (`$(cat F)` takes off only final newlines, `"$ENV"` nothing): readSecret takes off a CRLF
 * and surrounding whitespace too, and a printed command that reads such a source sends another
 * secret (review17 F5).
 */
const readAsGiven = new WeakMap<Context, Set<string>>();
function sourceAsGiven(ctx: Context, source: string, shellReads: string, secret: string): void {
  if (shellReads !== secret) return;
  const sources = readAsGiven.get(ctx) ?? new Set<string>();
  readAsGiven.set(ctx, sources.add(source));
}

export async function readSecret(
  ctx: Context,
  flags: SecretFlags,
  options: ReadSecretOptions,
): Promise<string | undefined> {
  const { name, label } = options;
  if (flags.file !== undefined) {
    const bytes = await readSecretInputBytes(
      flags.file,
      ctx.io.stdin,
      `--${name}-file`,
      SECRET_INPUT_LIMIT,
      ctx.signal,
      (line) => ctx.out.warn(line),
    );
    const text = secretText(bytes, `--${name}-file ${flags.file}`);
    const secret = cleanSecret(ctx, label, `--${name}-file ${flags.file}`, text);
    sourceAsGiven(ctx, `file:${flags.file}`, text.replace(/\n+$/, ''), secret);
    return secret;
  }
  if (flags.stdin) {
    if (ctx.io.stdinIsTTY) {
      throw new UsageError(`--${name}-stdin reads the ${label} from standard input, which is a terminal`, {
        hint: `pipe it in, e.g. \`${sym.ellipsis} --${name}-stdin < ${name}.txt\``,
      });
    }
    return cleanSecret(
      ctx,
      label,
      'standard input',
      secretText(await readSecretStdin(ctx.io.stdin, ctx.signal), 'standard input'),
    );
  }
  const fromEnv = options.env ? ctx.env[options.env] : undefined;
  if (options.env && fromEnv !== undefined && fromEnv !== '') {
    const secret = cleanSecret(ctx, label, options.env, fromEnv);
    sourceAsGiven(ctx, `env:${options.env}`, fromEnv, secret);
    return secret;
  }
  if (options.prompt && ctx.canPrompt) {
    return cleanSecret(
      ctx,
      label,
      'the answer',
      await ctx.prompter.password(`${label[0]!.toUpperCase()}${label.slice(1)}:`),
    );
  }
  if (options.required) {
    throw new UsageError(`this needs the ${label}`, {
      hint: `pass --${name}-file FILE or --${name}-stdin${options.env ? `, or set ${options.env}` : ''}`,
    });
  }
  return undefined;
}

/**
 * Where readSecret took a secret from, as shell text a printed command reads it again by:
 * `"$(cat 'F')"` for a file, `"$ENV"` for the environment variable; undefined for standard input or
 * a prompt, which no later command can read (review16e E6: `"$SVC_CLIENT_SECRET"` was printed for
 * a secret given by file, and the command was refused invalid_client), and undefined too for a
 * source the shell would read otherwise than svc did (a CRLF, spaces around it: review17 F5).
 * The order is readSecret's.
 */
export function secretShellText(
  ctx: Context,
  flags: SecretFlags,
  env: string | undefined,
): string | undefined {
  const asGiven = (source: string) => readAsGiven.get(ctx)?.has(source) === true;
  if (flags.file !== undefined)
    return flags.file !== '-' && asGiven(`file:${flags.file}`)
      ? `"$(cat ${pathWord(flags.file)})"`
      : undefined;
  if (flags.stdin) return undefined;
  const fromEnv = env ? ctx.env[env] : undefined;
  return env && fromEnv !== undefined && fromEnv !== '' && asGiven(`env:${env}`) ? `"$${env}"` : undefined;
}
