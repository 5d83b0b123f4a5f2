/**
 * The one rule for boolean SVC_* variables (src/config/env-flags.ts): 1/true/yes/on and
 * 0/false/no/off in any case and with blanks around; unset or blank is off; anything else is
 * refused (exit 2) naming the variable and the value, except where no error can be printed yet
 * (envSwitchOrOff: off).
 */
import { describe, expect, it } from 'vitest';
import { envSwitch, envSwitchOrOff } from '../../src/config/env-flags.js';
import { EXIT_CODES, type SvcError, UsageError } from '../../src/errors.js';

const ON = ['1', 'true', 'yes', 'on', 'TRUE', 'Yes', 'oN', ' 1 ', '\ttrue\n'];
const OFF = ['0', 'false', 'no', 'off', 'FALSE', 'No', 'OFF', ' 0 ', '\toff\n'];
const BAD = ['2', 'y', 'n', 'enable', 'disabled', 'tru', 'onn', '1 0', '-1', 'true!'];

function refusal(env: Record<string, string | undefined>, name: string): SvcError {
  try {
    envSwitch(env, name);
  } catch (error) {
    return error as SvcError;
  }
  throw new Error(`${name} was not refused`);
}

describe('envSwitch', () => {
  it.each(ON)('%j is on', (raw) => {
    expect(envSwitch({ SVC_DEBUG: raw }, 'SVC_DEBUG')).toBe(true);
  });

  it.each(OFF)('%j is off', (raw) => {
    expect(envSwitch({ SVC_DEBUG: raw }, 'SVC_DEBUG')).toBe(false);
  });

  it.each(['', ' ', '\t\n'])('blank %j is off, not refused', (raw) => {
    expect(envSwitch({ SVC_DEBUG: raw }, 'SVC_DEBUG')).toBe(false);
  });

  it('unset is off; only the variable named is read', () => {
    expect(envSwitch({}, 'SVC_DEBUG')).toBe(false);
    expect(envSwitch({ SVC_ALLOW_INSECURE_HTTP: '1' }, 'SVC_DEBUG')).toBe(false);
    expect(envSwitch({ SVC_DEBUG: '0', SVC_ALLOW_INSECURE_HTTP: 'on' }, 'SVC_ALLOW_INSECURE_HTTP')).toBe(
      true,
    );
  });

  it.each(BAD)(
    '%j is refused with exit 2, naming the variable, the choices and the value as given',
    (raw) => {
      const error = refusal({ SVC_ALLOW_INSECURE_HTTP: raw }, 'SVC_ALLOW_INSECURE_HTTP');
      expect(error).toBeInstanceOf(UsageError);
      expect(EXIT_CODES[error.category]).toBe(2);
      expect(error.message).toBe(
        `SVC_ALLOW_INSECURE_HTTP must be 1, true, yes or on (or 0, false, no, off), got ${JSON.stringify(raw)}`,
      );
    },
  );

  it('quotes the value untrimmed, so a stray blank or control character shows', () => {
    expect(refusal({ SVC_DEBUG: ' maybe\n' }, 'SVC_DEBUG').message).toBe(
      'SVC_DEBUG must be 1, true, yes or on (or 0, false, no, off), got " maybe\\n"',
    );
  });
});

describe('envSwitchOrOff', () => {
  it.each(ON)('%j is on', (raw) => {
    expect(envSwitchOrOff({ SVC_DEBUG: raw }, 'SVC_DEBUG')).toBe(true);
  });

  it.each([...OFF, '', undefined])('%j is off', (raw) => {
    expect(envSwitchOrOff({ SVC_DEBUG: raw }, 'SVC_DEBUG')).toBe(false);
  });

  it.each(BAD)('%j (which envSwitch refuses) is off, never thrown', (raw) => {
    expect(envSwitchOrOff({ SVC_DEBUG: raw }, 'SVC_DEBUG')).toBe(false);
  });
});
