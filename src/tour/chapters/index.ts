import type { Tour } from '../runner.js';
import { foundation } from './foundation.js';
import { roles } from './roles.js';

/** The tour's chapters, in order. Each issue adds its own. */
export const CHAPTERS: Array<(tour: Tour) => Promise<void>> = [foundation, roles];
