import type { Command } from 'commander';
import { AUDIT_ACTION_FAMILIES, AUDIT_ACTIONS } from '../api/audit.js';
import { EVENT_TYPES } from '../api/constants.js';
import { RECORD_SURFACES } from '../api/operations.js';

/**
 * What a value can be completed from at TAB time (by `svc __complete KIND`), or `files` / `dirs`
 * (file names, directory names) for an option or argument that takes a path.
 */
export type Dynamic = 'profiles' | 'tenants' | 'roles' | 'webhooks' | 'files' | 'dirs';

export interface OptionSpec {
  names: string[];
  description: string;
  takesValue: boolean;
  values: string[];
  dynamic?: Dynamic;
}

export interface ArgumentSpec {
  name: string;
  values: string[];
  dynamic?: Dynamic;
  variadic: boolean;
}

export interface CommandSpec {
  /** Words from the root, e.g. ['tenants', 'ls']; [] for svc itself. */
  path: string[];
  names: string[];
  description: string;
  options: OptionSpec[];
  args: ArgumentSpec[];
  subcommands: CommandSpec[];
}

/**
 * The global options that decide which server, profile, tenant and organisation a command acts
 * on. The scripts pass the ones already on the line to `svc __complete`, before or after the verb,
 * so TAB offers the roles and webhooks of the tenant the command will use (`--allow-insecure-http`
 * because without it an http base URL on the line is refused).
 */
export const CONTEXT_OPTIONS = [
  '-p',
  '--profile',
  '--base-url',
  '--tenant',
  '--org',
  '--allow-insecure-http',
];

/**
 * Options whose values come from somewhere svc knows (by long name), the path-taking ones
 * included: the one list all three scripts complete file and directory names from.
 */
const OPTION_HINTS: Record<string, Dynamic> = {
  '--profile': 'profiles',
  '--tenant': 'tenants',
  '--role': 'roles',
  '--webhook': 'webhooks',
  '--file': 'files',
  '--input': 'files',
  '--data-file': 'files',
  '--secret-file': 'files',
  '--client-secret-file': 'files',
  '--header-file': 'files',
  '--payload': 'files',
  '--journal': 'files',
  '--output': 'files',
  '--out': 'files',
  '--secret-dir': 'dirs',
  '--capture': 'dirs',
};

/**
 * Values suggested for options that take any value of an open-ended kind (the command tree has
 * no choices for them, so any value is accepted).
 */
const OPTION_SUGGESTIONS: Record<string, readonly string[]> = {
  '--event-type': EVENT_TYPES,
  // An action or its family (`role` matches every role.* action).
  '--action': [...AUDIT_ACTION_FAMILIES, ...AUDIT_ACTIONS],
};

/** The documented record surfaces; a write is offered only the ones that take writes. */
const SURFACES = Object.keys(RECORD_SURFACES);
const WRITABLE_SURFACES = SURFACES.filter((s) => RECORD_SURFACES[s]?.write !== null);

/** Positional arguments by name, or by "command path + name" where a name means different things. */
const ARGUMENT_HINTS: Record<string, Dynamic> = {
  tenant: 'tenants',
  role: 'roles',
  webhook: 'webhooks',
  'apply PLAN.json': 'files',
  'profiles use name': 'profiles',
  'profiles show name': 'profiles',
  'profiles rm name': 'profiles',
};

/** Positional arguments whose values are a fixed list (the command tree does not say). */
const ARGUMENT_VALUES: Record<string, string[]> = {
  'config get key': ['base_url', 'app_url', 'tenant', 'org', 'client_id'],
  'config set key': ['base_url', 'app_url', 'tenant', 'org', 'client_id'],
  'config unset key': ['base_url', 'app_url', 'tenant', 'org', 'client_id'],
  'completion shell': ['bash', 'zsh', 'fish'],
  'api method': ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
  'records ls surface': SURFACES,
  'records get surface': SURFACES,
  'records create surface': WRITABLE_SURFACES,
  'records update surface': WRITABLE_SURFACES,
  'records delete surface': WRITABLE_SURFACES,
};

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}

function visible(command: Command): boolean {
  return !(command as unknown as { _hidden?: boolean })._hidden && command.name() !== 'help';
}

/** The command tree as plain data, in a stable order, for the completion and docs generators. */
export function commandModel(command: Command, path: string[] = []): CommandSpec {
  const options: OptionSpec[] = command.options
    .filter((o) => !o.hidden)
    .map((o) => {
      const names = [o.short, o.long].filter((n): n is string => typeof n === 'string');
      const dynamic = o.long ? OPTION_HINTS[o.long] : undefined;
      return {
        names,
        description: firstLine(o.description),
        takesValue: o.required || o.optional,
        values: [...(o.argChoices ?? (o.long ? OPTION_SUGGESTIONS[o.long] : undefined) ?? [])],
        ...(dynamic ? { dynamic } : {}),
      };
    });
  const key = path.join(' ');
  const args: ArgumentSpec[] = command.registeredArguments.map((a) => {
    const dynamic = ARGUMENT_HINTS[`${key} ${a.name()}`] ?? ARGUMENT_HINTS[a.name()];
    return {
      name: a.name(),
      values: [...(a.argChoices ?? ARGUMENT_VALUES[`${key} ${a.name()}`] ?? [])],
      variadic: a.variadic,
      ...(dynamic ? { dynamic } : {}),
    };
  });
  const subcommands = command.commands.filter(visible).map((c) => commandModel(c, [...path, c.name()]));
  // A group with a default verb (`svc webhooks dlq WEBHOOK` runs `dlq ls`) takes that verb's
  // options and arguments too, so completing after the group name works as before the split.
  const defaultName = (command as unknown as { _defaultCommandName?: string })._defaultCommandName;
  const byDefault = subcommands.find((c) => c.names[0] === defaultName);
  return {
    path,
    names: [command.name(), ...command.aliases()],
    description: firstLine(command.summary() || command.description()),
    options: byDefault ? [...options, ...byDefault.options] : options,
    args: byDefault ? [...args, ...byDefault.args] : args,
    subcommands,
  };
}

/** Every command of the tree, parents before children. */
export function flatten(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.subcommands.flatMap(flatten)];
}
