import { ConfigError } from '../errors.js';

/**
 * What a well-formed config.json and credentials.json look like. Every read checks the shape,
 * so a hand edit or a damaged file is reported by name (exit 2) instead of being half-read,
 * silently dropped or overwritten; svc never resets a file on its own.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export function malformed(path: string, reason: string): ConfigError {
  return new ConfigError(`cannot read ${path}: ${reason}`, {
    hint: 'fix or remove the file; svc never resets it on its own',
  });
}

/** Parses a file's text; an empty file is malformed (a crash or a truncation left it so). */
export function parseFile(path: string, text: string): Json {
  if (text.trim() === '') throw malformed(path, 'it is empty');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed(path, 'it is not valid JSON');
  }
  if (!isObject(parsed)) throw malformed(path, 'it does not hold a JSON object');
  return parsed;
}

function profilesOf(path: string, file: Json): Record<string, Json> {
  const profiles = file.profiles;
  if (profiles === undefined) return {};
  if (!isObject(profiles)) throw malformed(path, '"profiles" is not an object of profiles');
  for (const [name, value] of Object.entries(profiles)) {
    if (!isObject(value)) throw malformed(path, `profile ${JSON.stringify(name)} is not an object`);
  }
  return profiles as Record<string, Json>;
}

export function checkConfigFile(path: string, file: Json, keys: readonly string[]): void {
  if (file.active_profile !== undefined && typeof file.active_profile !== 'string') {
    throw malformed(path, '"active_profile" is not a string');
  }
  for (const [name, profile] of Object.entries(profilesOf(path, file))) {
    for (const key of keys) {
      if (profile[key] !== undefined && typeof profile[key] !== 'string') {
        throw malformed(path, `${JSON.stringify(key)} of profile ${JSON.stringify(name)} is not a string`);
      }
    }
  }
}

const CREDENTIAL_STRINGS = [
  'refresh_token',
  'expires_at',
  'scope',
  'client_id',
  'client_secret',
  'token_url',
  'obtained_at',
  'origin',
  'session',
];

export function checkCredentialsFile(path: string, file: Json): void {
  for (const [name, credential] of Object.entries(profilesOf(path, file))) {
    const which = `the credential of profile ${JSON.stringify(name)}`;
    if (credential.type !== 'token' && credential.type !== 'oauth') {
      throw malformed(path, `${which} has an unknown type ${JSON.stringify(credential.type)}`);
    }
    if (typeof credential.access_token !== 'string' || credential.access_token === '') {
      throw malformed(path, `${which} has no access_token`);
    }
    for (const key of CREDENTIAL_STRINGS) {
      if (credential[key] !== undefined && typeof credential[key] !== 'string') {
        throw malformed(path, `${JSON.stringify(key)} of ${which} is not a string`);
      }
    }
    const refused = credential.refresh_refused;
    if (
      refused !== undefined &&
      !(isObject(refused) && ['code', 'message', 'at'].every((key) => typeof refused[key] === 'string'))
    ) {
      throw malformed(path, `"refresh_refused" of ${which} is not an object of code, message and at`);
    }
    const sent = credential.refresh_sent;
    if (
      sent !== undefined &&
      !(
        isObject(sent) &&
        typeof sent.refresh_token_sha256 === 'string' &&
        Number.isSafeInteger(sent.pid) &&
        typeof sent.at === 'string'
      )
    ) {
      throw malformed(
        path,
        `"refresh_sent" of ${which} is not an object of refresh_token_sha256, pid and at`,
      );
    }
  }
}
