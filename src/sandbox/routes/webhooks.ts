// Over 300 lines: each /v1/webhooks route with its published description (the rule as the API states it)
// reads as one; who owns a webhook and why it stops live in domain/webhook-owner.ts.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { CHANNEL_CHOICE, WEBHOOK_SECRET } from '../../api/channel-holds.js';
import type { EventType } from '../../api/constants.js';
import { IdempotencyKey } from '../../api/schemas/common.js';
import {
  TestEventBody,
  TestEventResult,
  WebhookCreateBody,
  WebhookList,
  WebhookParams,
  WebhookUpdateBody,
  WebhookWithSecret,
} from '../../api/schemas/webhooks.js';
import { redactUrlText } from '../../api/secret-names.js';
import { sampleEventData } from '../delivery/events.js';
import { describeSchedule } from '../delivery/schedule.js';
import { auditValues } from '../domain/audit-trail.js';
import { badRequest, notFound } from '../domain/errors.js';
import {
  eventDataReader,
  ownerAfter,
  ownerOf,
  requireChannel,
  requireSecret,
  rotationReason,
} from '../domain/webhook-owner.js';
import { deliveryView, webhookAuditFields, webhookView } from '../domain/webhook-views.js';
import { MAX_PREVIOUS_SECRETS, type WebhookRecord } from '../domain/webhooks.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
import type { SandboxState } from '../state.js';
import { auditChange } from './audit.js';
import { errorResponses, type RouteContext } from './context.js';

const tags = ['webhooks'];
const HIDDEN =
  'x-svc-not-in-reference: the reference says "Operations to create, update or delete a webhook subscription: not shown"; ' +
  "this operation is the sandbox's.";
const SECRET_RULE =
  "The signing secret is a standing credential (whoever holds it signs events of the webhook's kinds that its receiver " +
  'trusts, after any grant ends), so every operation that hands one out — creating a webhook, rotating its secret, ' +
  "restoring a previous one — takes webhook.manage and the read permission of each of the webhook's kinds held without " +
  'an end date (the read permissions as choosing its URL takes them; as creating an OAuth client or rotating its secret ' +
  'takes what its scopes reach so held): lacking a read permission is 403 insufficient_permission naming the kinds and ' +
  'the permission; a just-in-time grant is 403 insufficient_permission naming what ends and when. A webhook made by a ' +
  'just-in-time webhook.manage holder would keep delivering, signed with the secret they took, after the grant ends ' +
  "(it stops only when its owner loses a kind's read permission).";
const CHANNEL_RULE =
  'A webhook sends the data of its event kinds to its URL for as long as it exists, so choosing that takes the permission that ' +
  "reads each kind's data (exception.read for exception.*, reconciliation.read for reconciliation.*; webhook.test none), held " +
  'without an end date, as for an API key: else 403 insufficient_permission naming what is lacking. The caller becomes its owner ' +
  "(owner_id: a delegated OAuth token's approving user, an API key's issuer); it delivers only while the owner holds those " +
  'permissions and the OAuth client or API key it was set up through exists, else the platform shows it disabled with ' +
  'disabled_reason and sends nothing, and it stays so (the owner regaining them, just in time or not, does not resume it) until ' +
  'someone enables it. Putting back the URL that your own URL change replaced gives the webhook back to the owner before that change ' +
  '(if they would keep it).';
const SECRET_WARNING = 'Store the signing secret now: it is not shown again (rotate it to get a new one).';

export function checkTargetUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('url is not a valid URL', [{ field: 'url', message: 'is not a valid URL' }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badRequest('url must be an http or https URL', [
      { field: 'url', message: 'must use http or https' },
    ]);
  }
  if (url.username || url.password) {
    throw badRequest('url must not carry credentials', [{ field: 'url', message: 'has a user or password' }]);
  }
  return url.href;
}

export function webhookOf(state: SandboxState, tenantId: string, id: string): WebhookRecord {
  const webhook = state.webhooks.get(tenantId, id);
  if (!webhook) throw notFound(`webhook ${id}`);
  return webhook;
}

/** The platform's /v1/webhooks endpoints: webhook.read to look, webhook.manage to change or send. */
export default function webhookRoutes(app: FastifyInstance, { state }: RouteContext): void {
  const view = (w: WebhookRecord) =>
    webhookView(w, state.webhooks.previousSecrets(w), state.webhooks.stopReason(w), rotationReason(state, w));
  app.addHook('onClose', async () => state.delivery.close());

  app.get<{ Querystring: { limit?: number; cursor?: string } }>(
    '/v1/webhooks',
    {
      config: { operation: 'webhooks_list' },
      schema: {
        tags,
        summary: 'List webhooks',
        description:
          "The tenant's webhooks, oldest first. The reference shows no response body; this is the sandbox's: items and next_cursor. Secrets are never listed.",
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
          cursor: Type.Optional(Type.String({ maxLength: 2048 })),
        }),
        response: { 200: WebhookList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const fingerprint = filterFingerprint({ what: 'webhooks' });
      const after = request.query.cursor
        ? decodeCursor(request.query.cursor, fingerprint, { tenant: request.tenant!.id })
        : undefined;
      const all = state.webhooks.list(request.tenant!.id).filter((w) => !after || w.seq > after.k);
      const page = all.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map(view),
        next_cursor:
          all.length > limit && last
            ? encodeCursor({ k: last.seq, i: last.id }, fingerprint, { tenant: request.tenant!.id })
            : null,
      };
    },
  );

  app.post<{ Body: WebhookCreateBody }>(
    '/v1/webhooks',
    {
      config: { operation: 'webhooks_create' },
      schema: {
        tags,
        summary: 'Create a webhook',
        description: `${HIDDEN} Returns the signing secret once (with a warning). max_attempts defaults to 5. ${CHANNEL_RULE} ${SECRET_RULE}`,
        body: WebhookCreateBody,
        response: { 201: WebhookWithSecret, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const url = checkTargetUrl(body.url);
      const tenantId = request.tenant!.id;
      requireChannel(state, request.principal!, tenantId, {
        what: CHANNEL_CHOICE.create,
        kinds: body.event_types,
        secret: WEBHOOK_SECRET.create,
      });
      const webhook = state.webhooks.create(
        tenantId,
        { ...body, url },
        { owner: ownerOf(state, request.principal!, tenantId) },
      );
      auditChange(state, request, {
        action: 'webhook.created',
        target_type: 'webhook',
        target_id: webhook.id,
        summary: `webhook ${webhook.id} created for ${redactUrlText(webhook.url)} (${webhook.event_types.join(', ')})`,
        after: auditValues(['url', 'event_types'], {}, webhookAuditFields(webhook)).after,
      });
      return reply.code(201).send({ ...view(webhook), secret: webhook.secret, warning: SECRET_WARNING });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/webhooks/:id',
    {
      config: { operation: 'webhooks_get' },
      schema: {
        tags,
        summary: 'Fetch one webhook',
        description: 'Not in the reference (its fields are "not shown"); the secret is never returned here.',
        params: WebhookParams,
        response: { 200: Type.Ref('Webhook'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => view(webhookOf(state, request.tenant!.id, request.params.id)),
  );

  app.patch<{ Params: { id: string }; Body: WebhookUpdateBody }>(
    '/v1/webhooks/:id',
    {
      config: { operation: 'webhooks_update' },
      schema: {
        tags,
        summary: 'Update a webhook',
        description:
          `${HIDDEN} Changes apply to deliveries created afterwards; a disabled webhook receives no new events. ` +
          `Changing the URL, adding event kinds, or enabling it (also one the platform disabled, disabled_reason) chooses where its data goes: ${CHANNEL_RULE} ` +
          'Removing kinds, the description, max_attempts and disabling choose nothing and keep the owner. ' +
          'A webhook the platform stopped keeps the owner its disabled_reason names until someone enables it: a new URL or added kinds meanwhile take the permission but not ownership (it delivers nothing); enabling it does.',
        params: WebhookParams,
        body: WebhookUpdateBody,
        response: { 200: Type.Ref('Webhook'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const change = { ...request.body };
      if (change.url !== undefined) change.url = checkTargetUrl(change.url);
      const principal = request.principal!;
      const stopped = state.webhooks.stopReason(webhook) !== null;
      const moves = change.url !== undefined && change.url !== webhook.url;
      const addsKinds = (change.event_types ?? []).some((k) => !webhook.event_types.includes(k));
      const enables = change.status === 'enabled' && (webhook.status === 'disabled' || stopped);
      const chooses = moves || addsKinds || enables;
      if (chooses) {
        requireChannel(state, principal, webhook.tenant_id, {
          what: CHANNEL_CHOICE.update,
          kinds: change.event_types ?? webhook.event_types,
        });
      }
      const before = webhookAuditFields(webhook);
      // A stopped webhook keeps the owner its stop (disabled_reason) names until someone enables
      // it: a new URL or kinds meanwhile deliver nothing, so they take no ownership (and the record
      // never names one owner in owner_id and another in disabled_reason); enabling does.
      const takesOwnership = chooses && (!stopped || enables);
      const next = takesOwnership
        ? ownerAfter(state, webhook, ownerOf(state, principal, webhook.tenant_id), {
            url: moves ? change.url! : null,
            addsKinds,
            enables,
          })
        : undefined;
      const changes = state.webhooks.update(webhook, change);
      // Enabled or disabled on request, a webhook is no longer stopped (keptStop): enabled, it
      // delivers while its new owner holds the permissions; disabled, its status says so.
      if (enables || change.status === 'disabled') webhook.stopped = null;
      if (next) {
        webhook.undo = next.undo;
        if (stopped || JSON.stringify(next.owner) !== JSON.stringify(webhook.owner)) {
          webhook.owner = next.owner;
          webhook.updated_at = state.clock.iso();
          changes.push('owner_id');
        }
      }
      // Nothing changed, nothing to audit (as for roles).
      if (changes.length === 0) return view(webhook);
      auditChange(state, request, {
        action: 'webhook.updated',
        target_type: 'webhook',
        target_id: webhook.id,
        summary: `webhook ${webhook.id} updated (${changes.join(', ')})`,
        changes,
        ...auditValues(changes, before, webhookAuditFields(webhook)),
      });
      return view(webhook);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/webhooks/:id',
    {
      config: { operation: 'webhooks_delete' },
      schema: {
        tags,
        summary: 'Delete a webhook',
        description: `${HIDDEN} A soft delete: the webhook disappears from every endpoint, and its deliveries still waiting for an attempt are cancelled (failed, not dead-lettered).`,
        params: WebhookParams,
        response: {
          200: Type.Object({ id: Type.String(), deleted: Type.Literal(true), deleted_at: Type.String() }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      const webhook = state.webhooks.softDelete(webhookOf(state, request.tenant!.id, request.params.id));
      state.delivery.kick();
      auditChange(state, request, {
        action: 'webhook.deleted',
        target_type: 'webhook',
        target_id: webhook.id,
        summary: `webhook ${webhook.id} (${redactUrlText(webhook.url)}) deleted`,
      });
      return { id: webhook.id, deleted: true as const, deleted_at: webhook.deleted_at! };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/v1/webhooks/:id/rotate-secret',
    {
      config: { operation: 'webhooks_rotate_secret' },
      schema: {
        tags,
        summary: 'Rotate the signing secret',
        description:
          'Not in the reference ("how a webhook secret is issued or rotated: not shown"). Returns the new secret once. ' +
          'For 24 hours every delivery carries two v1 signatures, one per secret, so receivers can switch without losing events. ' +
          'A second rotation within those 24 hours ends no earlier promise: each secret rotated out signs until 24 hours after ' +
          `its own rotation (previous_secrets lists them), up to ${MAX_PREVIOUS_SECRETS} at once; a rotation beyond that is ` +
          `409 conflict, naming when the oldest stops. ${SECRET_RULE} Only a user with their own login rotates it: not a ` +
          "third-party OAuth client's token acting for the user nor an API key (403 user_required): the new secret would " +
          'outlive the client or key it came through, while the webhook does not.',
        params: WebhookParams,
        body: Type.Object({ idempotency_key: IdempotencyKey }),
        response: { 200: WebhookWithSecret, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const found = webhookOf(state, request.tenant!.id, request.params.id);
      requireSecret(state, request.principal!, found.tenant_id, WEBHOOK_SECRET.rotate, found.event_types);
      const webhook = state.webhooks.rotateSecret(found);
      auditChange(state, request, {
        action: 'webhook.secret_rotated',
        target_type: 'webhook',
        target_id: webhook.id,
        summary: `signing secret of webhook ${webhook.id} rotated`,
      });
      return { ...view(webhook), secret: webhook.secret, warning: SECRET_WARNING };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/v1/webhooks/:id/restore-secret',
    {
      config: { operation: 'webhooks_restore_secret' },
      schema: {
        tags,
        summary: 'Undo the last secret rotation',
        description:
          'Not in the reference. While the secret a rotation replaced still signs (24 hours), puts it back as the ' +
          'current secret (the secrets rotated out before it sign on until their own times); the secret the rotation issued ' +
          'stops working at once. Receivers that kept the old secret never notice. Rotations are undone as a stack: each ' +
          `restore undoes the last rotation not yet undone (up to ${MAX_PREVIOUS_SECRETS} in a row), so two rotations then two ` +
          'restores give the first secret back. 409 conflict when there is no rotation to undo (none, all undone, or the ' +
          'secret it would put back stopped signing). `svc webhooks listen --webhook` rotates to learn a secret for its ' +
          `session and restores it this way, also when another session took the webhook over meanwhile. ${SECRET_RULE} ` +
          "Only a user with their own login restores it, as only they rotate it: not a third-party OAuth client's token nor " +
          'an API key (403 user_required): the secret it puts back would outlive the client or key (it may be one a revoked ' +
          'integration was given); rotation_reason says when it is.',
        params: WebhookParams,
        body: Type.Object({ idempotency_key: IdempotencyKey }),
        response: { 200: Type.Ref('Webhook'), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const found = webhookOf(state, request.tenant!.id, request.params.id);
      requireSecret(state, request.principal!, found.tenant_id, WEBHOOK_SECRET.restore, found.event_types);
      const webhook = state.webhooks.restoreSecret(found);
      auditChange(state, request, {
        action: 'webhook.secret_restored',
        target_type: 'webhook',
        target_id: webhook.id,
        summary: `signing secret of webhook ${webhook.id} restored (the last rotation undone)`,
      });
      return view(webhook);
    },
  );

  app.post<{ Params: { id: string }; Body: { event_type?: EventType } }>(
    '/v1/webhooks/:id/test',
    {
      config: { operation: 'webhooks_test' },
      schema: {
        tags,
        summary: 'Send a test event',
        description:
          'Emits a webhook.test event (or the event_type given) to this webhook only, whatever its event kinds; ' +
          'a disabled webhook receives no events, so it is refused (409 webhook_disabled: enable it first) and nothing is sent ' +
          'and returns the event and its delivery (the response body is not shown in the reference). ' +
          `Delivery, retries and signature are those of every event: ${describeSchedule(5).join('; ')}.`,
        params: WebhookParams,
        body: TestEventBody,
        response: { 201: TestEventResult, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const type = request.body.event_type ?? 'webhook.test';
      const data = { ...sampleEventData(type, state.clock.now()), webhook_id: webhook.id };
      const { event, deliveries } = state.delivery.emit(webhook.tenant_id, type, data, webhook);
      auditChange(state, request, {
        action: 'webhook.test_sent',
        target_type: 'webhook',
        target_id: webhook.id,
        summary: `test event ${event.id} (${type}) sent to webhook ${webhook.id} (${redactUrlText(webhook.url)})`,
        after: { event_id: event.id, event_type: type, delivery_id: deliveries[0]!.id },
      });
      return reply.code(201).send({
        event: { id: event.id, type: event.type, created_at: event.created_at },
        delivery: deliveryView(deliveries[0]!, eventDataReader(state, request.principal!, webhook.tenant_id)),
      });
    },
  );
}
