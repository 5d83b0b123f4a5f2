/** API keys cannot mint keys (part of the rule of who may hand out what, holds.ts): 403 user_required. */
import { grantsPermission } from './roles.js';

/** Whether granting or re-timing a role with these permissions takes a person (keys cannot mint keys). */
export const mintsKeys = (permissions: readonly string[]) => grantsPermission(permissions, 'api_key.manage');

/** Whether a custom role change (`before` empty for a creation) makes a role that mints keys. */
export const makesKeyMinter = (before: readonly string[], after: readonly string[]) =>
  mintsKeys(after) && !mintsKeys(before);

/**
 * The user_required refusal of an API key granting, re-timing, creating or widening a role that
 * mints keys.
 */
export function keyMinterRefusal(role: string, change: 'grant' | 'expiry' | 'create' | 'widen'): string {
  switch (change) {
    case 'grant':
      return `API keys cannot grant ${role}: it carries api_key.manage, and keys cannot mint keys; a person must grant it`;
    case 'expiry':
      return `API keys cannot change the expiry of ${role}: it carries api_key.manage, and keys cannot mint keys; a person must do it`;
    case 'create':
      return `API keys cannot create ${role} with api_key.manage: keys cannot mint keys, nor make a role that can; a person must create it`;
    case 'widen':
      return `API keys cannot put api_key.manage into ${role}: keys cannot mint keys, nor make a role that can; a person must change it`;
  }
}
