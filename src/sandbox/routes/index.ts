import type { FastifyInstance } from 'fastify';
import apiKeyRoutes from './api-keys.js';
import assignmentRoutes from './assignments.js';
import auditTrailRoutes from './audit-trail.js';
import type { RouteContext } from './context.js';
import controlRoutes from './control.js';
import meRoutes from './me.js';
import oauthAuthorizeRoutes from './oauth-authorize.js';
import oauthClientRoutes from './oauth-clients.js';
import oauthControlRoutes from './oauth-control.js';
import oauthDeviceRoutes from './oauth-device.js';
import oauthServerRoutes from './oauth-server.js';
import oauthTokenRoutes from './oauth-token.js';
import recordRoutes from './records.js';
import roleRoutes from './roles.js';
import roleControlRoutes from './roles-control.js';
import targetControlRoutes from './target-control.js';
import tenantRoutes from './tenants.js';
import userRoutes from './users.js';
import webhookDeliveryRoutes from './webhook-deliveries.js';
import webhookRoutes from './webhooks.js';
import webhookControlRoutes from './webhooks-control.js';

/** Every route module of the sandbox, registered in this order (the generic record surface last). */
export const ROUTE_MODULES: Array<(app: FastifyInstance, ctx: RouteContext) => void> = [
  controlRoutes,
  meRoutes,
  tenantRoutes,
  apiKeyRoutes,
  oauthClientRoutes,
  oauthTokenRoutes,
  oauthAuthorizeRoutes,
  oauthDeviceRoutes,
  oauthControlRoutes,
  oauthServerRoutes,
  webhookRoutes,
  webhookDeliveryRoutes,
  webhookControlRoutes,
  targetControlRoutes,
  roleRoutes,
  assignmentRoutes,
  userRoutes,
  roleControlRoutes,
  auditTrailRoutes,
  recordRoutes,
];
