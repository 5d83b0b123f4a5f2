import { UsageError } from '../errors.js';
import { quoted } from '../output/format.js';
import type { Env } from '../output/io.js';

const ON = new Set(['1', 'true', 'yes', 'on']);
const OFF = new Set(['0', 'false', 'no', 'off']);

/**
 * Every boolean SVC_* variable (SVC_DEBUG, SVC_ALLOW_INSECURE_HTTP) is read by this one rule:
 * 1/true/yes/on and 0/false/no/off, in any case; unset or empty is off; anything else is refused
 * (exit 2, naming the variable), so a typo never silently leaves a switch off.
 */
export function envSwitch(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return false;
  const value = raw.trim().toLowerCase();
  if (ON.has(value)) return true;
  if (OFF.has(value)) return false;
  throw new UsageError(`${name} must be 1, true, yes or on (or 0, false, no, off), got ${quoted(raw)}`);
}

/** envSwitch for where an error cannot be reported yet (how to print an error): a bad value is off. */
export function envSwitchOrOff(env: Env, name: string): boolean {
  try {
    return envSwitch(env, name);
  } catch {
    return false;
  }
}
