/** Nobody hands themselves anything (part of the rule of who may hand out what, holds.ts): 403 self_assignment. */

/** What a self_assignment refusal says the caller did, to themselves and as a key's issuer. */
export const SELF_CHANGES = {
  grant: ['grant roles to yourself', 'grants roles to themselves'],
  expiry: ['change the expiry of your own roles', 'changes the expiry of their own roles'],
  widen: ['put permissions into a role you hold', 'puts permissions into a role they hold'],
} as const;

/** Every change a self_assignment refuses, as x-error-codes says them (one list with the refusals'). */
export const SELF_CHANGES_SAID = Object.values(SELF_CHANGES)
  .map(([, theirs]) => theirs)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

/**
 * The self_assignment refusal: nobody grants themselves a role, moves the end of their own
 * grant, or puts permissions into a role they hold (a grant to themselves of what it adds), nor through an API key they issued (a key is seen through to its issuer, named by
 * `issuer`; /v1/me says it as credential.issued_by, so svc predicts the same words).
 */
export function selfAssignmentRefusal(change: 'grant' | 'expiry' | 'widen', issuer?: string): string {
  const [yours, theirs] = SELF_CHANGES[change];
  return issuer === undefined
    ? `you cannot ${yours}; ask another administrator`
    : `this API key was issued by ${issuer}, and nobody ${theirs}; ask another administrator`;
}
