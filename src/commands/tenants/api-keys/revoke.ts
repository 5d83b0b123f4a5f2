import { Command } from 'commander';
import { commandLine } from '../../../config/settings.js';
import type { Context } from '../../../context.js';
import { InterruptedError } from '../../../errors.js';
import { ApiKeyNotFoundError, keysOf, retyped } from '../../../platform/errors.js';
import {
  attemptStart,
  callerIdsOnce,
  clearlyBeforeAttempt,
  interruptedReadingCaller,
  isCaller,
} from '../../../platform/found-after-lost.js';
import type { Platform } from '../../../platform/index.js';
import { alreadyGone } from '../../already-gone.js';
import { confirmDestructive, deleted, examples, type MakeContext, nonEmpty } from '../../kit.js';
import { verdict } from '../../verdict.js';
import { keyArguments, keyTenantRef, listedKey } from './shared.js';

export async function runApiKeyRevoke(
  ctx: Context,
  tenantGiven: string | undefined,
  keyId: string,
): Promise<void> {
  const id = nonEmpty('KEY', keyId);
  const tenantRef = await keyTenantRef(ctx, tenantGiven);
  // The platform's revoke of a revoked key answers as if it had revoked it: look first.
  const { tenant, key: before } = await listedKey(ctx, tenantRef, id, 'revoke');
  const platform = await ctx.platform();
  if (before?.revoked_at) {
    return alreadyGone(ctx, {
      thing: async () => `API key ${id} (${before.name}) of ${await tenant.label()}`,
      done: 'revoked',
      at: before.revoked_at,
      json: verdict('already_revoked', 'api_key', before, before),
    });
  }
  await confirmDestructive(
    ctx,
    async () => `Revoke API key ${id} of ${await tenant.label()}? Anything using it stops working.`,
    `revoking API key ${id}`,
  );
  // The label (a GET /v1/me for a tenant given by id) before the DELETE: a DELETE started first and
  // refused (or answered 204) while that read was on its way had no handler yet, and Node killed
  // svc with a stack (review19b F8). Nothing is awaited between starting a request and `deleted`.
  const label = await tenant.label();
  // This attempt's start, put on the platform's clock once its answer is in (attemptStart).
  const startMs = ctx.clock.now();
  const revoke = platform.tenants.apiKeys
    .revoke(tenant.id, id)
    .withResponse()
    .catch((error: unknown) => {
      throw error instanceof ApiKeyNotFoundError
        ? retyped(error, ApiKeyNotFoundError, keysOf(tenantRef)(commandLine(ctx.settings())))
        : error;
    });
  const answer = await deleted(ctx, revoke, {
    act: 'revoke',
    thing: 'the key',
    done: 'revoked',
    subject: `API key ${id} of ${label} is gone`,
    target: { id, tenant_id: tenant.id },
    noun: 'api_key',
  });
  if (answer === undefined) return;
  const { data, response } = answer;
  // The platform answers a revoke of a key revoked meanwhile (by another admin, after svc looked)
  // as its own: its revoked_by says whose it was (attack28b F6). Not the caller's, by the grant
  // rule's forms (isCaller: case, `user:ID`; review28a M1): already revoked. Who the caller is
  // (GET /v1/me) decides whenever it can be read: the answer's time is on the objects' clock, which
  // may run far from the Date header's (review28e L2: svc's own revoke read as already_revoked).
  // Only when it cannot be read does the time decide: revoked clearly before this attempt started,
  // on the platform's clock, it is not this command's (review28d L1); else the key is revoked all
  // the same, which is what was asked: exit 0, words that claim neither (review28a L4).
  const by = (data as { revoked_by?: unknown }).revoked_by;
  const at = typeof data.revoked_at === 'string' ? data.revoked_at : undefined;
  const thing = `API key ${id}${before?.name ? ` (${before.name})` : ''} of ${label}`;
  if (typeof by === 'string' && by.trim() !== '') {
    const already = () =>
      alreadyGone(ctx, {
        thing,
        done: 'revoked',
        at,
        more: ` by ${by}`,
        json: verdict('already_revoked', 'api_key', data, data),
      });
    const settled = `the key is revoked either way: nothing more to do to revoke it; ${keysOf(tenantRef)(commandLine(ctx.settings()))}`;
    // A stop during that read: exit 130, the key said revoked by someone (cut-sweep), not a bare
    // "interrupted" over a revoke the platform answered.
    const mine = await callerIdsOnce(platform)().catch((error: unknown) => {
      throw interruptedReadingCaller(
        error,
        `the platform's answer that API key ${id} is revoked, by ${by}`,
        settled,
      );
    });
    if (mine === undefined || mine.length === 0) {
      if (clearlyBeforeAttempt(at, attemptStart(platform, startMs))) return already();
      if (ctx.out.isMachine) return ctx.out.json(verdict('revoked_by_either', 'api_key', data, data));
      return ctx.out.info(`${thing} is revoked (by ${by}, or by this command: svc could not tell)`);
    }
    if (!isCaller(mine, by)) return already();
    // The caller's own name is no proof that this request revoked it: the same user, from another
    // session, may have revoked it after svc looked (session 28's leftover of attack28b F6), later
    // than this attempt started, so the time cannot tell. The audit trail's entry names the request
    // that revoked the key: another than this one's X-Request-Id, already revoked; unreadable,
    // words that claim neither. A stored answer replayed to this command's own retry is its own.
    if (!response.replayed) {
      const revokedIn = await revokingRequest(platform, tenant.id, id).catch((error: unknown) => {
        throw interruptedReadingCaller(
          error,
          `the platform's answer that API key ${id} is revoked, by you (${by})`,
          settled,
          'the audit trail',
        );
      });
      const known = revokedIn !== undefined && response.requestId !== undefined;
      // After a lost answer, another request's id may be that lost attempt's, this command's own.
      if (known && revokedIn !== response.requestId && !response.afterLostAnswer)
        return alreadyGone(ctx, {
          thing,
          done: 'revoked',
          at,
          more: ` by ${by}: you, in request ${revokedIn}, not this command's`,
          json: verdict('already_revoked', 'api_key', data, data),
        });
      if (!known || revokedIn !== response.requestId) {
        if (ctx.out.isMachine) return ctx.out.json(verdict('revoked_by_either', 'api_key', data, data));
        return ctx.out.info(
          `${thing} is revoked (by ${by}, you: by this command or by another request of yours meanwhile: svc could not tell)`,
        );
      }
    }
  }
  // The one verdict of every delete and revoke (verdict.ts): `outcome` and the key beside it under
  // `api_key`; the key's fields stay at the top too, where scripts read them before.
  if (ctx.out.isMachine) return ctx.out.json(verdict('revoked', 'api_key', data, data));
  // The name svc listed; the answer's may be absent (another server's record; review19d F4).
  const name = before?.name ?? (typeof data.name === 'string' ? data.name : undefined);
  ctx.out.success(`revoked API key ${id}${name ? ` (${name})` : ''} of ${label}`);
}

/**
 * The request (its id) that revoked API key `keyId`, by the tenant's audit trail (its one
 * api_key.revoked entry); undefined when the trail cannot be read (a caller without
 * audit_trail.read, a server without one) or has no such entry. A stop (Ctrl-C) is thrown.
 */
async function revokingRequest(
  platform: Platform,
  tenantId: string,
  keyId: string,
): Promise<string | undefined> {
  try {
    const page = await platform.audit.list(
      { target_type: 'api_key', target_id: keyId, action: 'api_key.revoked', order: 'desc', limit: 10 },
      { tenant: tenantId },
    );
    const entry = page.items.find((e) => e.target_id === keyId && e.action === 'api_key.revoked');
    return typeof entry?.request_id === 'string' && entry.request_id !== '' ? entry.request_id : undefined;
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    return undefined;
  }
}

export function revokeCommand(make: MakeContext): Command {
  return new Command('revoke')
    .argument('[tenant]', "tenant id or slug (default: the profile's tenant; asked on a terminal)")
    .argument('[key-id]', "the key id (key_…); given alone, a key of the profile's tenant")
    .description(
      'Revoke an API key at once (asks first; --yes when not on a terminal).\n' +
        'With --json: svc\'s verdict, {"outcome": …, "api_key": {…}} (the key\'s fields also at the top, as before):\n' +
        '"revoked", "already_revoked" (nothing changed, exit 0), "gone_after_lost_answer" (an answer was lost\n' +
        'and the key is revoked now), or "revoked_by_either" (the answer names a revoker, svc cannot read who\n' +
        'you are (GET /v1/me) to tell whether it is you, and its revoked_at is not clearly before this command\n' +
        "started (within the clocks' allowed difference), or it names you and the audit trail cannot be read to\n" +
        "tell this command's request from another of yours: the key is revoked, exit 0). It names you and the\n" +
        'audit trail names another request as the revoking one: "already_revoked". An answer naming you is\n' +
        'always checked against the audit trail: without audit_trail.read it is "revoked_by_either".',
    )
    .addHelpText(
      'after',
      examples(['svc tenants api-keys revoke acme-treasury key_3f2a… --yes', 'revoke a key']),
    )
    .action(async (first: string | undefined, second: string | undefined, _flags: unknown, cmd: Command) => {
      const { tenant, key } = await keyArguments(make, cmd, 'revoke', first, second);
      await runApiKeyRevoke(
        await make(cmd),
        tenant === undefined ? undefined : nonEmpty('TENANT', tenant),
        key,
      );
    });
}
