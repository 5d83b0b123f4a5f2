import { randomBytes, randomInt } from 'node:crypto';
import { OAUTH_LIMITS } from '../../api/constants.js';
import type { SandboxClock } from '../clock.js';
import { hashKey } from './identity.js';

/**
 * A device authorization (RFC 8628): a terminal without a browser (over SSH) asked for codes;
 * the user enters the user code on the verification page in any browser and approves or denies;
 * the device polls the token endpoint with the device code until then.
 */
export interface DeviceAuthorization {
  clientId: string;
  scopes: string[];
  /** XXXX-XXXX, as shown to the user. */
  userCode: string;
  expiresAtMs: number;
  /** Seconds between polls; raised by 5 after each slow_down (RFC 8628 §3.5). */
  intervalSeconds: number;
  lastPollMs: number | null;
  decision: { approved: true; userId: string; tenantIds: string[] } | { approved: false } | null;
  /** Tokens were issued: the device code is used up. */
  issued: boolean;
}

/** RFC 8628 §6.1: consonants only (no vowels, so no words; no look-alike 0/O, 1/I), 8 of them. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

/** What a user typed, as a code: case, spaces and dashes do not matter. */
export function normalizeUserCode(input: string): string {
  const letters = input.toUpperCase().replace(/[^A-Z]/g, '');
  return letters.length === 8 ? `${letters.slice(0, 4)}-${letters.slice(4)}` : letters;
}

/** Device authorizations by the hash of their device code; user codes point at those keys. */
export class DeviceAuthorizations {
  readonly #byKey = new Map<string, DeviceAuthorization>();
  readonly #userCodes = new Map<string, string>();
  /** When recent wrong user codes were typed (RFC 8628 §5.1: guessing is rate-limited). */
  #misses: number[] = [];
  /** The polling interval new authorizations start with (a test may shorten it to save time). */
  intervalSeconds: number = OAUTH_LIMITS.deviceIntervalSeconds;
  readonly #clock: SandboxClock;

  constructor(clock: SandboxClock) {
    this.#clock = clock;
  }

  /** RFC 8628 §3.2: new device and user codes for a client. */
  start(clientId: string, scopes: string[]): { deviceCode: string; record: DeviceAuthorization } {
    const deviceCode = randomBytes(32).toString('base64url');
    let userCode: string;
    do {
      let letters = '';
      for (let i = 0; i < 8; i++) letters += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
      userCode = normalizeUserCode(letters);
    } while (this.#userCodes.has(userCode));
    const record: DeviceAuthorization = {
      clientId,
      scopes,
      userCode,
      expiresAtMs: this.#clock.now() + OAUTH_LIMITS.deviceCodeLifetimeSeconds * 1000,
      intervalSeconds: this.intervalSeconds,
      lastPollMs: null,
      decision: null,
      issued: false,
    };
    const key = hashKey(deviceCode);
    this.#byKey.set(key, record);
    this.#userCodes.set(userCode, key);
    return { deviceCode, record };
  }

  /**
   * Seconds until user codes may be looked up again, after too many wrong ones in the last minute
   * (whoever typed them: on a real platform, per address; the sandbox serves one machine).
   */
  lockedForSeconds(): number {
    const now = this.#clock.now();
    this.#misses = this.#misses.filter((at) => at > now - 60_000);
    if (this.#misses.length < OAUTH_LIMITS.deviceUserCodeMissesPerMinute) return 0;
    return Math.max(1, Math.ceil((this.#misses[0]! + 60_000 - now) / 1000));
  }

  /**
   * The pending (unexpired, unanswered) device authorization a user code names, with its key; a
   * code that names none counts as a miss (see lockedForSeconds).
   */
  pending(userCode: string): { key: string; record: DeviceAuthorization } | undefined {
    const key = this.#userCodes.get(normalizeUserCode(userCode));
    const record = key === undefined ? undefined : this.#byKey.get(key);
    if (!key || !record || record.decision !== null || record.expiresAtMs <= this.#clock.now()) {
      this.#misses.push(this.#clock.now());
      return undefined;
    }
    return { key, record };
  }

  byKey(key: string): DeviceAuthorization | undefined {
    return this.#byKey.get(key);
  }

  /** The device authorization a device code stands for. */
  find(deviceCode: string): DeviceAuthorization | undefined {
    return this.#byKey.get(hashKey(deviceCode));
  }
}
