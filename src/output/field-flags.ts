import type { Command } from 'commander';
import { ApiError } from '../http/errors.js';
import { quoted } from './format.js';

/**
 * A verb's request fields and the flags that set them (`event_types` → `--event-type`): a 400 that
 * names a field (`event_types.0 must be equal to one of …`) is said with the flag the user typed
 * instead (attack26a F8; CONVENTIONS: an error about a flag names the flag), the rest in the
 * server's words. Declared beside each verb (fieldFlags), read where errors are rendered.
 */
export type FieldFlags = Readonly<Record<string, string>>;

const declared = new WeakMap<Command, FieldFlags>();

/** Declares which flag sets each request field of `command`'s operation; returns the command. */
export function fieldFlags(command: Command, fields: FieldFlags): Command {
  declared.set(command, fields);
  return command;
}

/** What `command` declared (fieldFlags), if anything. */
export function fieldFlagsOf(command: Command | undefined): FieldFlags | undefined {
  return command === undefined ? undefined : declared.get(command);
}

/**
 * A 400's message with its leading field (`event_types.0`, `redirect_uris.1`, `url`) said as the
 * verb's flag and, when it is a plain word the words do not already say, the value it was sent
 * (`--event-type "nope.event" must be …`); undefined when the message names no field declared.
 */
export function messageInFlags(error: unknown, fields: FieldFlags | undefined): string | undefined {
  if (fields === undefined || !(error instanceof ApiError) || error.status !== 400) return undefined;
  const named = /^([a-z][a-z0-9_]*)(?:\.(\d+))?(?=\s)(.*)$/s.exec(error.message);
  if (!named) return undefined;
  const [, field, index, rest] = named;
  const flag = fields[field!];
  if (flag === undefined) return undefined;
  const sent = (error.sentBody as Record<string, unknown> | undefined)?.[field!];
  const value = index === undefined ? sent : Array.isArray(sent) ? sent[Number(index)] : undefined;
  // Only a plain word is repeated (an event kind, a scope): a URL may carry a secret the server
  // masked in its own words (`?token=[redacted]`), and those words already say it.
  const word = typeof value === 'string' && /^[\w.:,-]{1,100}$/.test(value) && !rest!.includes(value);
  const said = word ? ` ${quoted(value)}` : typeof value === 'number' ? ` ${value}` : '';
  return `${flag}${said}${rest}`;
}
