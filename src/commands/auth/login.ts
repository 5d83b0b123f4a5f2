import { Command, Option } from 'commander';
import type { Me } from '../../api/schemas/me.js';
import { jwtExpiry } from '../../auth/jwt.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { readStream } from '../../system/input.js';
import { examples, type MakeContext } from '../kit.js';

/** Reads one credential from stdin: surrounding whitespace dropped, nothing else accepted. */
export async function readTokenFromStdin(ctx: Context): Promise<string> {
  if (ctx.io.stdinIsTTY) {
    throw new UsageError('--with-token reads the token from standard input', {
      hint: 'pipe it in: `svc login --with-token < token.txt` or `printenv MY_TOKEN | svc login --with-token`',
    });
  }
  const token = (await readStream(ctx.io.stdin)).toString('utf8').trim();
  if (token === '')
    throw new UsageError('no token on standard input', { hint: 'pipe an API key or JWT into svc' });
  if (/\s/.test(token))
    throw new UsageError('the token on standard input contains whitespace; give exactly one token');
  return token;
}

export async function runLoginWithToken(ctx: Context): Promise<void> {
  const token = await readTokenFromStdin(ctx);
  const settings = ctx.settings();
  const api = await ctx.api();
  // Check the token before storing it: a rejected token exits 3 and leaves the profile as it was.
  const { data: me } = await api.get<Me>('/v1/me', undefined, {
    headers: { authorization: `Bearer ${token}` },
    auth: false,
    secrets: [token],
  });
  const store = ctx.store();
  const expiresAt = jwtExpiry(token);
  await store.setCredential(settings.profile, {
    type: 'token',
    access_token: token,
    ...(expiresAt ? { expires_at: expiresAt } : {}),
    obtained_at: new Date(ctx.clock.now()).toISOString(),
  });
  if (settings.sources.base_url !== 'profile' && settings.values.base_url) {
    await store.setProfileValues(settings.profile, { base_url: settings.values.base_url });
  }
  if (!settings.values.tenant && me?.tenant_id)
    await store.setProfileValues(settings.profile, { tenant: me.tenant_id });
  if (!store.activeProfile()) await store.setActiveProfile(settings.profile);
  if (ctx.out.isMachine) {
    return ctx.out.json({ profile: settings.profile, base_url: settings.values.base_url, identity: me });
  }
  ctx.out.success(
    `Logged in to ${settings.values.base_url} as ${me?.name ?? me?.id ?? 'unknown'} (profile "${settings.profile}")`,
  );
  if (ctx.env.SVC_TOKEN) ctx.out.warn('SVC_TOKEN is set and overrides the stored credential');
}

export default function login(make: MakeContext): Command {
  return new Command('login')
    .summary('Log in and store a credential in the profile')
    .description(
      'Store a credential in the profile.\n\n' +
        '--with-token reads an API key or JWT from standard input (never from a flag), checks it\n' +
        'against GET /v1/me, and stores it in the 0600 credential file.',
    )
    .addOption(new Option('--with-token', 'read an API key or JWT from standard input'))
    .addHelpText(
      'after',
      examples(
        ['svc login --with-token < token.txt', 'store a token kept in a file'],
        [
          'printenv SVC_SANDBOX_TOKEN | svc -p sandbox login --with-token',
          'store a token for another profile',
        ],
      ),
    )
    .action(async (flags: { withToken?: boolean }, cmd: Command) => {
      if (!flags.withToken) {
        throw new UsageError('browser login (OAuth with PKCE) is not available in this build yet', {
          hint: 'use `svc login --with-token` with an API key or JWT',
        });
      }
      await runLoginWithToken(await make(cmd));
    });
}
