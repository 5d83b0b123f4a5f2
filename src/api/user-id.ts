import { shellWord } from '../system/shell-words.js';

/**
 * An e-mail address where a user id belongs (an HR or spreadsheet grant list names people by
 * e-mail) comes back "user … not found" although the user exists (attack20 F4). The reference
 * types a user id as a string of no shape, and a server may use e-mail addresses as its ids
 * (review20c F3): the id is the server's to judge, sent as given, and only its "not found" adds
 * how to find the id (`svc users ls` lists each user's id with its email). `svc plan`, which asks
 * the server about each user first, says it of a user the server does not know.
 */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmailAddress(text: string): boolean {
  return EMAIL.test(text);
}

/** What an e-mail address given as a user id is, in words. */
export const EMAIL_NOT_ID = 'an e-mail address, not a user id (usr_…)';

/** What to say of an e-mail address given as a user id: what it is, and how to find the id. */
export function emailAsUserId(
  text: string,
  svc: (command: string) => string = (command) => `svc ${command}`,
): { message: string; hint: string } {
  const select = `select(.email == ${JSON.stringify(text)}) | .id`;
  return {
    message: `user ${JSON.stringify(text)} is ${EMAIL_NOT_ID}`,
    hint: `find its id with: ${svc('users ls --all --ndjson')} | jq -r ${shellWord(select)}`,
  };
}

/**
 * The fix half of a "user … not found" for an id shaped as an e-mail address, or undefined for
 * another id: the server knows no user by it, so it may be a user's e-mail rather than their id.
 */
export function emailLookupHint(user: string, svc?: (command: string) => string): string | undefined {
  if (!isEmailAddress(user)) return undefined;
  return `the id has the shape of an e-mail address: if it is the user's e-mail rather than their id, ${emailAsUserId(user, svc).hint}`;
}
