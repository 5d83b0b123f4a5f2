import type { FastifyInstance } from 'fastify';
import assignmentRoutes from './assignments.js';
import type { RouteContext } from './context.js';
import controlRoutes from './control.js';
import meRoutes from './me.js';
import recordRoutes from './records.js';
import roleRoutes from './roles.js';
import roleControlRoutes from './roles-control.js';
import tenantRoutes from './tenants.js';

/** Every route module of the sandbox, registered in this order (the generic record surface last). */
export const ROUTE_MODULES: Array<(app: FastifyInstance, ctx: RouteContext) => void> = [
  controlRoutes,
  meRoutes,
  tenantRoutes,
  roleRoutes,
  assignmentRoutes,
  roleControlRoutes,
  recordRoutes,
];
