/**
 * Where, and as whom, a call `svc api` asks before acts (attack29a F4): the question named only
 * the path, so a DELETE in another tenant (SVC_TENANT, `-H X-Tenant-Id`) or as another user (`-H
 * 'Authorization: Bearer …'`) was asked as `Send DELETE PATH?`, as a verb's never is.
 */
import { tenantByRef } from '../../api/tenant-id.js';
import { staticCredentials } from '../../auth/credentials.js';
import type { Context } from '../../context.js';
import { SvcError } from '../../errors.js';
import type { CallerIdentity } from '../../platform/me.js';
import { tenantWords } from '../../platform/tenants-said.js';
import type { ActsAs, Asked } from '../kit.js';
import { plainIdentity, tokenSubject } from '../kit.js';
import { tenantNamedByPath, tenantOfPath } from './path.js';

/**
 * The tenant the call acts in, by what it sends: an `-H X-Tenant-Id` (sent over svc's own), else
 * the tenant its path names (/v1/tenants/{id}/…, sent in place of the run's), else the run's
 * (--tenant, SVC_TENANT, the profile's); undefined when it sends none (the credential's own then).
 */
function tenantSent(ctx: Context, path: string, headers: Record<string, string>): string | undefined {
  if (Object.hasOwn(headers, 'x-tenant-id')) return headers['x-tenant-id'] || undefined;
  return tenantOfPath(path) === undefined ? ctx.settings().values.tenant : tenantNamedByPath(path);
}

/** The bearer token of an `-H Authorization` value; undefined for another scheme. */
function bearerOf(value: string): string | undefined {
  return /^bearer[ \t]+(\S+)\s*$/i.exec(value)?.[1];
}

/**
 * The question `Send METHOD PATH in TENANT?…`, with the identity an `-H Authorization` makes the
 * call act as (said by confirmDestructive's whereItActs, as SVC_TOKEN's is). The tenant is named as
 * every verb's question names it (tenantWords: `Acme Labs (acme-labs)`), from GET /v1/me read with
 * the credential the call sends (the header's bearer token, else the run's) and without
 * X-Tenant-Id (so a tenant not the credential's is still named, by what is sent): its tenants give
 * the words, its tenant_id the tenant of a call that sends none. Read only when someone is asked.
 * When it cannot be read (another scheme than Bearer, a rejected token, a server without it) the
 * tenant is named as sent and the identity as svc can tell it (a JWT's subject, else "a bearer
 * token"): the question is still asked, never dropped. The token itself is never printed.
 */
export async function callQuestion(
  ctx: Context,
  target: string,
  path: string,
  headers: Record<string, string>,
  what: string,
): Promise<Asked> {
  const ref = tenantSent(ctx, path, headers);
  const authorization = Object.hasOwn(headers, 'authorization') ? headers.authorization! : undefined;
  const bearer = authorization === undefined ? undefined : bearerOf(authorization);
  let me: CallerIdentity | undefined;
  if (authorization === undefined || bearer !== undefined) {
    const credentials =
      bearer === undefined ? {} : { credentials: staticCredentials(bearer, '-H Authorization') };
    try {
      me = await (await ctx.platform()).me.get({ ...credentials, tenant: null });
    } catch (error) {
      // What the read could not say is said as sent; a stop (Ctrl-C) or a bug is not swallowed.
      if (!(error instanceof SvcError) || ctx.signal.aborted) throw error;
    }
  }
  const id = ref ?? me?.tenant_id ?? undefined;
  const tenant = id === undefined || me === undefined ? undefined : tenantByRef(me.tenants, id);
  const where =
    tenant !== undefined
      ? tenantWords(tenant)
      : id !== undefined
        ? `tenant ${id}`
        : "the credential's own tenant";
  let actsAs: ActsAs | undefined;
  if (authorization !== undefined) {
    const known = me !== undefined && plainIdentity(me.id) ? me.id : bearer && tokenSubject(bearer);
    actsAs = {
      who: known || (bearer === undefined ? 'the credential' : 'a bearer token'),
      from: '-H Authorization',
    };
  }
  return { text: `Send ${target} in ${where}?${what ? ` ${what}.` : ''}`, actsAs };
}
