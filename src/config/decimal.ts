/**
 * The one reader of the numbers people type: every numeric SVC_* variable and flag. Plain decimal,
 * surrounding blanks allowed ("30", " 2.5", ".5", "-3"); anything else is NaN for the caller to
 * refuse, naming its variable or flag: blank (Number(" ") is 0, which turned retries off), hex,
 * binary and octal (0x10, 0b1, 0o7), exponents (1e3), "+2", "2.", "Infinity", digit separators.
 */
export function decimal(raw: unknown, kind: 'integer' | 'number'): number {
  const text = String(raw).trim();
  const shape = kind === 'integer' ? /^-?\d+$/ : /^-?(\d+|\d*\.\d+)$/;
  return shape.test(text) ? Number(text) : Number.NaN;
}
