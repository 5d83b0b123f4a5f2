import type { OAuthClient } from '../../api/schemas/oauth.js';
import { asciiHostUrls } from '../../output/hosts.js';
import type { Column, Field } from '../../output/output.js';
import { nonEmpty } from '../kit.js';

const seconds = (n: unknown) => (typeof n === 'number' ? `${n} s` : n);

/** A client's fields for people (never a secret: the API returns one only at creation and rotation). */
export const clientFields = (c: OAuthClient): Field[] => [
  ['client id', c.client_id],
  ['name', c.name],
  ['description', c.description],
  ['redirect uris', c.redirect_uris, 'url'],
  ['grant types', c.grant_types],
  ['scopes', c.scopes],
  ['token lifetime', seconds(c.token_lifetime_seconds)],
  ['refresh lifetime', seconds(c.refresh_token_lifetime_seconds)],
  ['pkce required', c.pkce_required === undefined ? undefined : c.pkce_required ? 'yes' : 'no'],
  ['created', c.created_at, 'time'],
  ['secret rotated', c.secret_rotated_at, 'time'],
];

export const CLIENT_COLUMNS: Array<Column<OAuthClient>> = [
  { header: 'client id', value: (c) => c.client_id, kind: 'id' },
  { header: 'name', value: (c) => c.name, kind: 'name' },
  { header: 'scopes', value: (c) => c.scopes },
  {
    header: 'redirect uris',
    value: (c) => c.redirect_uris,
    table: (c) => asciiHostUrls(c.redirect_uris),
    kind: 'url',
    optional: true,
  },
  {
    header: 'pkce',
    value: (c) => (c.pkce_required === undefined ? '' : c.pkce_required ? 'yes' : 'no'),
    optional: true,
  },
  { header: 'created', value: (c) => c.created_at, kind: 'time' },
  { header: 'secret rotated', value: (c) => c.secret_rotated_at, kind: 'time', optional: true },
];

export function clientArg(raw: unknown): string {
  return nonEmpty('CLIENT_ID', raw);
}

/** The request fields of `oauth create` and `update` and the flags that set them (field-flags.ts). */
export const CLIENT_FIELD_FLAGS = {
  name: '--name',
  description: '--description',
  redirect_uris: '--redirect-uri',
  scopes: '--scope',
  grant_types: '--grant-type',
  token_lifetime_seconds: '--token-lifetime',
  refresh_token_lifetime_seconds: '--refresh-token-lifetime',
} as const;
