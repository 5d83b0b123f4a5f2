import { Command, Option } from 'commander';
import { USER_LOOKUP_MAX, type User } from '../../api/schemas/users.js';
import { isEmailAddress } from '../../api/user-id.js';
import { commandLine, svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { idInWords } from '../../http/path.js';
import { someNames } from '../../output/format.js';
import type { Column } from '../../output/output.js';
import { lookForUser } from '../../platform/errors.js';
import { collect, examples, idFlag, type MakeContext, refuseJoinedValues } from '../kit.js';
import { Listing, type ListingOptions, listingOptions, parseListing } from '../listing.js';

/** The largest page GET /v1/users gives. */
const USER_PAGE_MAX = 1000;

export interface UsersLsOptions extends ListingOptions {
  /** Only these users (--id, repeatable): the ones that exist are listed. */
  ids: string[];
}

const COLUMNS: Array<Column<User>> = [
  { header: 'id', value: (u) => u.id, kind: 'id' },
  { header: 'name', value: (u) => u.name, kind: 'name' },
  { header: 'email', value: (u) => u.email, optional: true },
];

export function parseUsersLs(flags: Record<string, unknown>): UsersLsOptions {
  const raw = (flags.id as unknown[] | undefined) ?? [];
  const ids = [
    ...new Set(
      raw.map((id) => {
        const value = idFlag('--id', id, idInWords('user'));
        // An id holds no comma: `--id a,b` is two ids (it matched no user, exit 0).
        refuseJoinedValues(
          '--id',
          value,
          value.split(',').filter((part) => part.trim() !== ''),
        );
        return value;
      }),
    ),
  ];
  if (ids.length > USER_LOOKUP_MAX) {
    throw new UsageError(`--id names ${ids.length} users; at most ${USER_LOOKUP_MAX} at once`, {
      hint: 'split the list, or list every user with --all and filter it',
    });
  }
  if (ids.length > 0 && flags.cursor !== undefined) throw new UsageError('use --id or --cursor, not both');
  return { ...parseListing(flags), ids };
}

export async function runUsersLs(ctx: Context, options: UsersLsOptions): Promise<void> {
  const platform = await ctx.platform();
  const listing = new Listing<User>(options, USER_PAGE_MAX);
  const found = new Set<string>();
  async function* users(): AsyncGenerator<User> {
    for await (const user of listing.items((page) =>
      platform.users.list({ ...(options.ids.length > 0 ? { id: options.ids } : {}), ...page }),
    )) {
      found.add(user.id);
      yield user;
    }
  }
  await ctx.out.list(users(), COLUMNS, {
    empty: options.ids.length > 0 ? 'none of these ids is a user of the tenant' : 'the tenant has no users',
  });
  // Named on stderr in every mode (stdout keeps its shape); only once the answer is whole: ids a
  // --limit left unread are not known to be missing.
  const missing = listing.next ? [] : options.ids.filter((id) => !found.has(id));
  if (missing.length > 0) {
    // An e-mail address given for an id: how to find the id (lookForUser, as every verb of a user).
    const mailed = missing.find(isEmailAddress);
    const look = mailed === undefined ? '' : `; ${lookForUser(mailed)(commandLine(ctx.settings()))}`;
    ctx.out.warn(
      `${missing.length} of ${options.ids.length} ids are not users of the tenant: ${someNames(missing)}${look}`,
    );
  }
  listing.hintMore(ctx, svcCommand(ctx.settings(), 'users ls'));
}

export function lsCommand(make: MakeContext): Command {
  const command = new Command('ls')
    .alias('list')
    .summary('List the users who may hold roles in the tenant')
    .description(
      "The members of the tenant's organisation, by id: the users a role can be granted to.\n" +
        `With --id (repeatable, at most ${USER_LOOKUP_MAX}) only those that exist are listed: one request checks many ids;\n` +
        'the ones that are not users of the tenant are named on stderr (a few, then how many more).',
    );
  for (const option of listingOptions('users')) command.addOption(option);
  return command
    .addOption(new Option('--id <user>', 'only this user (repeatable)').argParser(collect))
    .addHelpText(
      'after',
      examples(
        ['svc users ls', 'the first 50, by id'],
        ['svc users ls --id usr_analyst --id usr_lead', 'which of these are users here'],
        ['svc users ls --all --ndjson | jq -r .email', 'every email address, one per line'],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseUsersLs(flags);
      await runUsersLs(await make(cmd), options);
    });
}
