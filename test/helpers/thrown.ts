import { SvcError } from '../../src/errors.js';

/** The SvcError `fn` throws; anything else it throws is thrown on, and throwing nothing fails the test. */
export function thrown(fn: () => unknown): SvcError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SvcError) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}
