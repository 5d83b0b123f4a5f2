import { Option } from 'commander';
import { UsageError } from '../../errors.js';
import { onlyWith } from '../bulk-flags.js';
import { intFlag } from '../kit.js';

/**
 * --wait means one thing in every webhooks verb that sends a delivery (test, replay): a switch,
 * follow the new delivery until its first attempt ends, for at most --wait-timeout seconds;
 * --no-wait turns it off. It once took the seconds in `test` and was a switch in `replay`, so
 * `replay W DLV --wait 5` replayed DLV for real and then failed on "delivery 5".
 */
export interface WaitFlags {
  /** Follow the new delivery; undefined: the verb's default. */
  wait: boolean | undefined;
  waitTimeoutMs: number;
}

export function waitOptions(
  follow: string,
  defaultWait: string,
  timeout: { max: number; dflt: number },
): Option[] {
  return [
    new Option('--wait', `${follow} (${defaultWait})`),
    new Option('--no-wait', 'do not wait: return once it is sent'),
    new Option('--wait-timeout <seconds>', `how long to wait, 1-${timeout.max} (default ${timeout.dflt})`),
  ];
}

export function parseWaitFlags(
  flags: Record<string, unknown>,
  timeout: { max: number; dflt: number },
): WaitFlags {
  if (flags.wait === false) onlyWith(flags, ['waitTimeout'], '--wait');
  return {
    wait: typeof flags.wait === 'boolean' ? flags.wait : undefined,
    waitTimeoutMs: (intFlag('--wait-timeout', flags.waitTimeout, 1, timeout.max) ?? timeout.dflt) * 1000,
  };
}

/** A bare number among the arguments: the seconds of the old `--wait N`. */
export const looksLikeSeconds = (word: string): boolean => /^\d+(\.\d+)?$/.test(word);

/** `svc webhooks test W --wait 5`: the 5 is refused with the flag that takes it, nothing sent. */
export function refuseWaitValue(extra: readonly string[]): void {
  if (extra.length === 0) return;
  const [word] = extra;
  if (looksLikeSeconds(word!)) {
    throw new UsageError(`--wait takes no value (${word})`, {
      hint: `to wait for the first attempt for at most ${word} s, pass --wait --wait-timeout ${word}`,
    });
  }
  throw new UsageError(`unexpected argument ${JSON.stringify(word)}: give one webhook id`);
}
