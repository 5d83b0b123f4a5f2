/**
 * A new login's session id, stored with its credential and kept by every refresh of it: a running
 * command keeps the session it started with (auth/credentials.ts), so a login in between — as
 * someone else, or anew — is told from a refresh. It is svc's own and never sent anywhere. Web
 * Crypto's global is used so that node:crypto is loaded only when an id is made, not at start.
 */
export function newSessionId(): string {
  return `ses_${globalThis.crypto.randomUUID()}`;
}
