import { UsageError } from '../errors.js';
import { nonEmpty } from './kit.js';

/**
 * Where a secret svc receives once goes: a new 0600 file (--secret-file), or stdout when asked
 * (--show-secret). One rule for every such secret that grants power (a webhook signing secret, a
 * service_role API key): never printed unasked (into a pipe, a CI log), and never lost, so a
 * command that would create one with neither flag is refused before anything is sent.
 */
export interface SecretDestination {
  file: string | undefined;
  show: boolean;
}

/** What the refusal says: the command, the secret's name, and why it matters. */
export interface SecretWords {
  what: string;
  secret: string;
  why: string;
}

/**
 * The --secret-file of a command that returns a secret once: a new file. `-`, which svc's
 * readers of a secret take as standard input, is refused here (review16 R2): it would make a file
 * named `-` that every later `--secret-file -` reads as stdin; printing is --show-secret.
 */
export function newSecretFile(raw: unknown): string {
  const file = nonEmpty('--secret-file', raw);
  if (file === '-') {
    throw new UsageError(
      '--secret-file - is not standard output here: the secret goes to a new file; to print it, use --show-secret',
      { hint: 'for a file named -, write ./-' },
    );
  }
  return file;
}

/**
 * The destination the flags give; with neither, refused (`words` say why), unless `required` is
 * false: a secret that grants no power over the tenant (a publishable key) is then printed.
 */
export function secretDestination(
  flags: Record<string, unknown>,
  words: SecretWords,
  required = true,
): SecretDestination {
  const file = flags.secretFile === undefined ? undefined : newSecretFile(flags.secretFile);
  const show = flags.showSecret === true;
  if (file !== undefined && show) throw new UsageError('use --secret-file or --show-secret, not both');
  if (required && file === undefined && !show) {
    throw new UsageError(
      `${words.what} returns the ${words.secret} once: pass --secret-file PATH (or --show-secret to print it)`,
      { hint: words.why },
    );
  }
  return { file, show };
}
