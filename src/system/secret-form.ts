import { characters, codePoint, controlCharacter, invisibleCharacter } from '../api/characters.js';
import { SvcError } from '../errors.js';

/**
 * The fewest characters of a secret svc takes from the platform: 16. The reference gives no form
 * for any secret it returns once (a webhook's signing secret, an OAuth client's client_secret, an
 * API key: no prefix, length or alphabet), so one rule holds for the three, and it asks only what
 * any issued secret has: no generator worth the name issues one under 128 bits, and 16 characters
 * of any alphabet hold at most that. The sandbox's (`whsec_`/`svc_cs_` and 43 base64url
 * characters) are far above it; a server with shorter ones is not one svc can be safe with.
 */
export const SECRET_MIN_CHARACTERS = 16;

/** What a server or gateway masking a secret puts in its place: `***`, `••••`, `…`, `xxxx`. */
const MASK = /^[*•●·.…#xX-]+$/u;
/** Or a word in its place: `REDACTED`, `[redacted]`, `<hidden>`. */
const MASK_WORD =
  /^[[<({]?(redacted|masked|hidden|secret|omitted|removed|none|null|undefined|n\/?a)[\]>)}]?$/iu;
/**
 * A prefix that names a secret's kind (`whsec_`, `svc_cs_`, `sk_live_`): the rest is the secret. At
 * most three short words: the random part after it is often base64url, whose alphabet holds `_`, and
 * a prefix of any length took `svc_pk_Ab_Cd_` whole (or left `x`, `na` after it), so a key the
 * platform had just made was refused as a bare prefix or a mask, about one in a few hundred.
 */
const PREFIX = /^((?:[A-Za-z][A-Za-z0-9]{0,7}_){1,3})(.*)$/su;

/**
 * Why a value the server answered as a one-time secret is not one svc can use, or undefined when it
 * is one (attack27a F1). Refused: none, not a string, empty, several lines, blank; any control,
 * invisible (Unicode Cf) or space character (a padded or altered secret: a header or an HMAC key
 * with it is another secret, and a terminal shows it changed); a mask in its place, whole or after
 * a prefix (`***`, `REDACTED`, `whsec_****…`), or a prefix alone; fewer than 16 characters. The
 * words never quote the value (a prefix before a mask at most): an error says them, and svc's
 * output redacts a value the answer held as a secret.
 */
export function secretProblem(secret: unknown): string | undefined {
  if (secret === undefined) return 'it has none';
  if (typeof secret !== 'string') return `it is ${secret === null ? 'null' : `a ${typeof secret}`}`;
  if (secret === '') return 'it is empty';
  if (/[\r\n]/.test(secret)) return 'it spans several lines';
  if (secret.trim() === '') return 'it is blank';
  const control = controlCharacter(secret);
  if (control) return `it holds a control character (${control.name}) at ${control.at}`;
  const invisible = invisibleCharacter(secret);
  if (invisible) return `it holds an invisible character (${invisible.name}) at ${invisible.at}`;
  let at = 0;
  for (const char of secret) {
    at++;
    if (/\p{Z}/u.test(char)) return `it holds a space (${codePoint(char)}) at ${at}`;
  }
  const [, prefix = '', rest = secret] = PREFIX.exec(secret) ?? [];
  if (prefix !== '' && rest === '') return 'it is a prefix with nothing after it';
  if (MASK.test(rest)) {
    const only = [...new Set(rest)].map((c) => JSON.stringify(c)).join(', ');
    return `it is masked (only ${only}${prefix ? ` after ${prefix}` : ''})`;
  }
  if (MASK_WORD.test(rest)) return 'it is a mask word, not a secret';
  const count = characters(secret);
  if (count < SECRET_MIN_CHARACTERS)
    return `it has ${count} character${count === 1 ? '' : 's'}, fewer than the ${SECRET_MIN_CHARACTERS} of any secret svc can use`;
  return undefined;
}

/**
 * A change made (its object, or its rotation) whose answer holds a secret svc cannot use: said as
 * it is, exit 1 (never ✓): what was made, which field was unusable and why, what became of it
 * (`nothing was written to PATH`, `it is not shown`), and the remedy (rotate again; for a rotation,
 * the old secret no longer works). Not the idempotency key's re-run: it answers the same secret.
 */
export class UnusableSecretError extends SvcError {
  constructor(made: string, field: string, problem: string, left: string, remedy: string) {
    super('failure', `${made}, but the platform answered a ${field} svc cannot use (${problem}); ${left}`, {
      code: 'bad_response',
      hint: remedy,
    });
  }
}

/**
 * The check of a secret about to be shown (--show-secret, --json, a publishable key): an unusable
 * one is refused as a file refuses it (SecretFile.write), before anything is printed.
 */
export function refuseUnusableSecret(secret: unknown, field: string, made: string, remedy: string): void {
  const problem = secretProblem(secret);
  if (problem !== undefined) throw new UnusableSecretError(made, field, problem, 'it is not shown', remedy);
}
