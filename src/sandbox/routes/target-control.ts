import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { StringEnum } from '../../api/schemas/common.js';
import { TARGET_FAULTS, type TargetFaultKind } from '../delivery/target-faults.js';
import { badRequest, notFound } from '../domain/errors.js';
import type { RouteContext } from './context.js';

const control = { auth: 'public', faultFree: true } as const;
const tags = ['sandbox control'];

const TargetFaultView = Type.Object({
  webhook_id: Type.String(),
  fault: StringEnum(['none', ...TARGET_FAULTS] as const),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
});

/**
 * A documented way to make a webhook's target fail (and come back), for rehearsing the on-call
 * journey: deliveries fail, retry, dead-letter; the target recovers; replays deliver.
 */
export default function targetControlRoutes(app: FastifyInstance, { state }: RouteContext): void {
  const webhookById = (id: string) => {
    const webhook = state.webhooks.byId(id);
    if (!webhook || webhook.deleted_at !== null) throw notFound(`webhook ${id}`);
    return webhook;
  };
  const view = (id: string) => {
    const fault = state.delivery.targetFault(id);
    return {
      webhook_id: id,
      fault: fault?.fault ?? ('none' as const),
      status_code: fault?.status_code ?? null,
    };
  };

  app.get<{ Params: { id: string } }>(
    '/_sandbox/webhooks/:id/target-fault',
    {
      config: { ...control, operation: 'sandbox_target_faults_get' },
      schema: {
        tags,
        summary: "Whether a webhook's target fails on purpose",
        params: Type.Object({ id: Type.String() }),
        response: { 200: TargetFaultView },
      },
    },
    async (request) => view(webhookById(request.params.id).id),
  );

  app.put<{ Params: { id: string }; Body: { fault: TargetFaultKind | 'none'; status_code?: number } }>(
    '/_sandbox/webhooks/:id/target-fault',
    {
      config: { ...control, operation: 'sandbox_target_faults_update' },
      schema: {
        tags,
        summary: "Make a webhook's target fail, or recover",
        description:
          'From the next attempt on, every attempt of the webhook fails as asked, without being sent: status (the target ' +
          'answers status_code, default 500), timeout (no answer within the request timeout), refused (connection refused), ' +
          'tls (an expired certificate). Each is classified, retried and dead-lettered like a real failure; its last_error ' +
          'says the sandbox injected it. fault none: attempts go to the target again (the seeded webhooks point at targets that ' +
          'do not answer; point one at `svc webhooks listen` to see deliveries succeed).',
        params: Type.Object({ id: Type.String() }),
        body: Type.Object(
          {
            fault: StringEnum(['none', ...TARGET_FAULTS] as const),
            status_code: Type.Optional(Type.Integer({ minimum: 300, maximum: 599 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: TargetFaultView },
      },
    },
    async (request) => {
      const webhook = webhookById(request.params.id);
      const { fault, status_code } = request.body;
      if (status_code !== undefined && fault !== 'status') {
        throw badRequest('status_code goes with fault status', [
          { field: 'status_code', message: 'only with fault status' },
        ]);
      }
      state.delivery.setTargetFault(
        webhook.id,
        fault === 'none' ? null : { fault, status_code: fault === 'status' ? (status_code ?? 500) : null },
      );
      return view(webhook.id);
    },
  );
}
