import type { Tour } from '../runner.js';
import { ascode } from './ascode.js';
import { foundation } from './foundation.js';
import { oauth } from './oauth.js';
import { roles } from './roles.js';
import { webhooks } from './webhooks.js';

/** The tour's chapters, in order: short, each step saying what it shows. */
export const CHAPTERS: Array<(tour: Tour) => Promise<void>> = [foundation, oauth, roles, webhooks, ascode];
