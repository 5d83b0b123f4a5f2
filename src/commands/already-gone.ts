import type { Context } from '../context.js';

/** What a delete or revoke found gone before it asked or sent anything. */
export interface AlreadyGone {
  /**
   * The thing as the line names it: "role fx (role_…)", "API key key_… (CI) of Acme (acme)"; a
   * function when naming it reads the platform, which --json then does not.
   */
  thing: string | (() => Promise<string>);
  /** What was done to it before: "deleted", "revoked". */
  done: string;
  /** When, as the platform wrote it; unknown to a record that says it is deleted without a time. */
  at: string | null | undefined;
  /** What follows on the line: "; it is to be purged at …". */
  more?: string;
  /** What --json prints instead: the one verdict (verdict.ts), its outcome "already_…". */
  json: Record<string, unknown>;
}

/**
 * One answer to deleting or revoking what is gone already (`records delete`, `tenants api-keys
 * revoke`, `roles delete`; attack26a F2): nothing is asked or sent, the line says so, exit 0.
 * The platform's second DELETE answers as if it had acted (a record, a key) or refuses (409
 * role_deleted), so each verb reads the thing first and says this instead.
 */
export async function alreadyGone(ctx: Context, gone: AlreadyGone): Promise<void> {
  if (ctx.out.isMachine) return ctx.out.json(gone.json);
  const thing = typeof gone.thing === 'string' ? gone.thing : await gone.thing();
  ctx.out.info(
    `nothing changed: ${thing} was ${gone.done} already, at ${gone.at ?? 'an unknown time'}${gone.more ?? ''}`,
  );
}
