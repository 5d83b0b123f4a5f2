import type { Tour } from '../runner.js';
import { ascode } from './ascode.js';
import { foundation } from './foundation.js';
import { oauth } from './oauth.js';
import { roles } from './roles.js';
import { surface } from './surface.js';
import { webhooks } from './webhooks.js';

/** The tour's chapters, in order. Each issue adds its own. */
export const CHAPTERS: Array<(tour: Tour) => Promise<void>> = [
  foundation,
  oauth,
  roles,
  webhooks,
  surface,
  ascode,
];
