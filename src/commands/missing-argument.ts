import { profileFlag, svcCommand, type TargetSettings } from '../config/settings.js';
import { UsageError } from '../errors.js';
import { shellWord } from '../system/shell-words.js';

/**
 * What lists the things an argument names, by the argument's name as the commands declare it
 * (`<webhook>`, `[tenant]`): the list a missing one points at. `<webhook>` in the words is the
 * WEBHOOK given before it (`svc webhooks deliveries ls wh_1`), left out when not given if marked
 * `?`; a name that means another thing
 * in another noun (`<id>`) is told apart by the noun.
 */
const LISTED_BY: Record<string, string | ((noun: string) => string | undefined)> = {
  webhook: 'webhooks ls',
  delivery: 'webhooks deliveries ls <webhook>',
  entry: 'webhooks dlq ls <webhook>',
  'client-id': 'oauth ls',
  role: 'roles ls',
  user: 'users ls',
  tenant: 'tenants ls',
  'key-id': 'tenants api-keys ls <tenant?>',
  id: (noun) => (noun === 'records' ? 'records ls <surface>' : noun === 'audit' ? 'audit ls' : undefined),
  key: (noun) => (noun === 'config' ? 'config ls' : undefined),
  name: (noun) => (noun === 'profiles' ? 'profiles ls' : undefined),
};

/** Where a missing argument's error is said: the command (path and arguments given) and the run's target. */
export interface MissingAt {
  /** `svc webhooks deliveries get`: the command whose help a hint names when nothing lists the thing. */
  command?: string;
  /** The command's noun (`records`, `audit`): what `<id>` names. */
  noun?: string;
  /** The arguments given before the missing one, by name. */
  given?: Record<string, string>;
  /** The run's settings, when known: the printed line repeats its `-p`/`--tenant` flags (svcCommand). */
  settings?: TargetSettings | undefined;
}

/**
 * The one error of an argument left out (F10, attack26a): `missing WEBHOOK`, naming it in upper
 * case as the help does, and pointing at the list of such things where there is one (`see \`svc
 * webhooks ls\``), else at the command's help. Said alike when commander finds a required
 * argument missing (cli-errors.ts) and when a verb that asks for it on a terminal finds none
 * (pick.ts). TENANT also has the profile's tenant as a way out, said with it.
 */
export function missingArgument(name: string, at: MissingAt): UsageError {
  const rule = LISTED_BY[name];
  const template = typeof rule === 'function' ? rule(at.noun ?? '') : rule;
  // A list that needs an argument not given (none yet) is no line to run: the help is.
  const words = template?.replace(/ ?<([a-z-]+)(\?)?>/g, (whole, arg: string, optional?: string) => {
    const value = at.given?.[arg];
    return value !== undefined ? ` ${shellWord(value)}` : optional ? '' : whole;
  });
  const list =
    words === undefined || words.includes('<')
      ? undefined
      : at.settings
        ? svcCommand(at.settings, words)
        : `svc ${words}`;
  const see = `see \`${list ?? `${at.command ?? 'svc'} --help`}\``;
  const hint =
    name === 'tenant'
      ? `pass it, or set the profile's tenant (--tenant, SVC_TENANT, \`svc ${at.settings ? profileFlag(at.settings) : ''}config set tenant\`); ${see}`
      : see;
  return new UsageError(`missing ${name.toUpperCase()}`, { hint });
}
