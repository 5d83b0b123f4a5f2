import { didYouMean } from '../../api/suggest.js';
import { PROFILE_KEYS, type ProfileKey } from '../../config/store.js';
import { UsageError } from '../../errors.js';
import { quoted } from '../../output/format.js';

/** The settings a profile holds, for help texts. */
export const KEYS = PROFILE_KEYS.join(', ');

/** A key that is no setting is invalid input (exit 2), like a bad flag; an unset one is not found (exit 5). */
export function checkKey(key: string): ProfileKey {
  if (!(PROFILE_KEYS as readonly string[]).includes(key)) {
    throw new UsageError(`unknown setting ${quoted(key)}${didYouMean(key, PROFILE_KEYS)}`, {
      hint: `settings are ${PROFILE_KEYS.join(', ')}`,
    });
  }
  return key as ProfileKey;
}
