import { DEVICE_CODE_GRANT } from '../api/constants.js';
import { envSwitch } from '../config/env-flags.js';
import { loginCommand } from '../config/settings.js';
import type { Context } from '../context.js';
import { AuthError, InterruptedError, SvcError, UsageError } from '../errors.js';
import { sym } from '../output/symbols.js';
import { authorizationRefused } from './authorization-response.js';
import type { BrowserFlowResult } from './flow.js';
import { deviceEndpoint, isOtherIssuer, serverMetadata } from './metadata.js';
import {
  invalidClientHint,
  oauthErrorCode,
  requestToken,
  tokenRequestFailed,
  tokenUrl,
} from './token-endpoint.js';

/**
 * `svc login --device`: the device authorization grant (RFC 8628), for a terminal whose machine
 * has no browser the user can reach (SSH). svc asks the server for a user code, the user types it
 * on the verification page in any browser, and svc polls the token endpoint until they approve
 * or deny, the code expires, or Ctrl-C. Offered only where the server announces a
 * device_authorization_endpoint in its RFC 8414 metadata.
 */

export interface DeviceFlowOptions {
  clientId: string;
  /** Where the client id came from, with how to change it there (invalidClientHint). */
  clientIdFrom?: string | undefined;
  clientSecret: string | undefined;
  scopes: string[];
  /**
   * Runs before a code is asked for and shown (the user's time is asked for only when its end can
   * be kept: review21c F5) and before each poll that may open a session at the server: throws to
   * stop there.
   */
  beforeExchange?: () => void;
}

interface DeviceCodes {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval: number;
}

function readCodes(data: unknown): DeviceCodes {
  const raw = (data ?? {}) as Record<string, unknown>;
  const text = (name: string) =>
    typeof raw[name] === 'string' && raw[name] !== '' ? (raw[name] as string) : undefined;
  const deviceCode = text('device_code');
  const userCode = text('user_code');
  // RFC 8628 §3.2; some servers (Google, older drafts) call it verification_url.
  const uri = text('verification_uri') ?? text('verification_url');
  const expiresIn = Number(raw.expires_in);
  if (!deviceCode || !userCode || !uri || !Number.isFinite(expiresIn) || expiresIn <= 0) {
    throw new SvcError(
      'failure',
      'the device authorization answer lacks device_code, user_code, verification_uri or expires_in',
    );
  }
  const interval = Number(raw.interval);
  return {
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: uri,
    ...(text('verification_uri_complete')
      ? { verification_uri_complete: text('verification_uri_complete')! }
      : {}),
    expires_in: expiresIn,
    // §3.2: 5 seconds when the server does not say.
    interval: Number.isFinite(interval) && interval > 0 ? interval : 5,
  };
}

function describeSeconds(seconds: number): string {
  return seconds >= 120 && seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} s`;
}

export async function authorizeWithDevice(
  ctx: Context,
  options: DeviceFlowOptions,
): Promise<BrowserFlowResult> {
  const api = await ctx.api();
  const baseUrl = ctx.settings().values.base_url!;
  const url = tokenUrl(baseUrl);
  const metadata = await serverMetadata(api, url);
  if (isOtherIssuer(metadata)) {
    const { at, names, expected } = metadata.otherIssuer;
    throw new AuthError(
      `the authorization server metadata at ${at} names issuer ${JSON.stringify(names)}, not ${expected}, so svc does not use it (RFC 8414 §3.3)`,
      {
        code: 'issuer_mismatch',
        hint: `if ${names} is the platform, log in with --base-url ${names.replace(/\/$/, '')}; a proxy or another name of the server cannot carry the login`,
      },
    );
  }
  const insecure = envSwitch(ctx.env, 'SVC_ALLOW_INSECURE_HTTP') || ctx.globals.allowInsecureHttp === true;
  const endpoint = deviceEndpoint(metadata?.device_authorization_endpoint, insecure);
  if (!endpoint) {
    throw new UsageError(`${new URL(baseUrl).origin} does not offer device authorization (RFC 8628)`, {
      hint: `use \`${loginCommand(ctx.settings())} --no-browser\`: open the URL it prints on any machine, then paste the address the browser ends on`,
    });
  }
  const requestedScope = options.scopes.length > 0 ? options.scopes.join(' ') : undefined;
  const secrets = options.clientSecret ? [options.clientSecret] : [];
  let codes: DeviceCodes;
  options.beforeExchange?.();
  try {
    const { data } = await api.request<unknown>({
      method: 'POST',
      path: endpoint,
      form: { client_id: options.clientId, client_secret: options.clientSecret, scope: requestedScope },
      auth: false,
      tenant: null,
      secrets,
    });
    codes = readCodes(data);
  } catch (error) {
    throw tokenRequestFailed(
      'the server refused to start a device login',
      error,
      secrets,
      oauthErrorCode(error) === 'invalid_client'
        ? invalidClientHint(options, loginCommand(ctx.settings()), error)
        : 'check the client id and --scope',
    );
  }
  ctx.secrets.add(codes.device_code);
  ctx.out.info('to log in, open this page in a browser on any device (your laptop, your phone):');
  ctx.out.info(`  ${codes.verification_uri}`);
  ctx.out.info(`and enter the code  ${codes.user_code}`);
  if (codes.verification_uri_complete) ctx.out.info(`(or open ${codes.verification_uri_complete})`);
  ctx.out.info(
    `waiting for approval (the code expires in ${describeSeconds(codes.expires_in)}; Ctrl-C to cancel)${sym.ellipsis}`,
  );

  const deadline = ctx.clock.now() + codes.expires_in * 1000;
  let interval = codes.interval;
  for (;;) {
    try {
      await ctx.clock.sleep(interval * 1000, ctx.signal);
    } catch {
      throw new InterruptedError('interrupted; the login was cancelled');
    }
    options.beforeExchange?.();
    try {
      const form = {
        grant_type: DEVICE_CODE_GRANT,
        device_code: codes.device_code,
        client_id: options.clientId,
        client_secret: options.clientSecret,
      };
      return { tokens: await requestToken(api, url, form), tokenUrl: url, requestedScope };
    } catch (error) {
      const code = oauthErrorCode(error);
      if (code === 'authorization_pending' && ctx.clock.now() < deadline) continue;
      if (code === 'slow_down') {
        // §3.5: 5 seconds more between polls, from now on.
        interval += 5;
        continue;
      }
      if (code === 'authorization_pending' || code === 'expired_token') {
        throw new AuthError('the code expired before the login was approved', {
          code: 'expired_token',
          hint: `run \`${loginCommand(ctx.settings())} --device\` again and enter the new code`,
        });
      }
      // As a redirect's denial: svc's code `authorization_denied`, the server's word `server_code`.
      if (code === 'access_denied') throw authorizationRefused(code);
      throw tokenRequestFailed(
        'the device login failed',
        error,
        [codes.device_code, ...secrets],
        // The same client was accepted at the start: invalid_client now is not about its secret.
        'run the login again',
      );
    }
  }
}
