/**
 * The platform client: one method per API operation (openai-node's resource shape), over the
 * one HTTP client. Known API error codes arrive as typed errors (./errors.ts) and every answer is
 * checked against its schema before a command sees it (./check.ts). Commands reach it through
 * `ctx.platform()` and never write an API path themselves.
 *
 *   const platform = await ctx.platform();
 *   const role = await platform.roles.get('tenant_admin');
 *   for await (const tenant of platform.tenants.listAll({ subscription_tier: 'pro' })) …
 *   const { data, response } = await platform.roles.assign(user, body, { idempotencyKey }).withResponse();
 */
import type { CommandLine, TargetSettings } from '../config/settings.js';
import type { ApiClient } from '../http/client.js';
import { keptNote, twiceNote } from '../http/paging.js';
import { AuditTrail } from './audit.js';
import { Identity } from './me.js';
import { OAuth } from './oauth.js';
import { Records } from './records.js';
import { Roles } from './roles.js';
import { SandboxControls } from './sandbox.js';
import { Tenants } from './tenants.js';
import { Transport } from './transport.js';
import { Users } from './users.js';
import { Webhooks } from './webhooks.js';

export type { ApiPromise, ResponseMeta, WithResponse } from './api-promise.js';
export type { CallOptions, Page } from './transport.js';

export class Platform {
  readonly #transport: Transport;
  #roles: Roles | undefined;
  #tenants: Tenants | undefined;
  #webhooks: Webhooks | undefined;
  #oauth: OAuth | undefined;
  #records: Records | undefined;
  #me: Identity | undefined;
  #audit: AuditTrail | undefined;
  #users: Users | undefined;
  #sandbox: SandboxControls | undefined;

  /** `settings`: where the run acts, for the command lines the hints of its errors name (`commandLine`). */
  constructor(api: ApiClient, settings?: TargetSettings) {
    this.#transport = new Transport(api, settings);
  }

  /** The run's command lines, for hints that name a command (as the platform's own errors do). */
  get svc(): CommandLine {
    return this.#transport.svc;
  }

  /** The same without the run's tenant, for commands about the credential (`svc me`, `svc tenants ls`). */
  get svcAnyTenant(): CommandLine {
    return this.#transport.svcAnyTenant;
  }

  /**
   * Tells `say` the one note of the items the lists this run read whole repeated of the items
   * before them, each read once (a list that changed while svc read it: ApiClient.keptTwice), in
   * the words `ls` uses (paging.ts twiceNote): `printed` once by a listing (`roles ls`), or, for a
   * command that prints none of them (`svc export`, `plan`, `apply`), the run's warning naming the
   * lists (paging.ts keptNote), where its output places it best; with `since`, only what the lists
   * kept once after it (a picker's own list: pick.ts chooseFrom). Nothing when none repeated; what is said is not said again. Every other
   * command is told by the one rule at the end of the run (Context.close: a warning).
   */
  sayTwice(say: (note: string) => void, done: 'printed' | 'kept', since?: ReadonlyMap<string, number>): void {
    const lists = this.#transport.api.keptTwice;
    // `since` (twiceSoFar before a read): only what lists kept once after it, the rest left for later.
    const said = new Map<string, number>();
    for (const [list, n] of lists) {
      const more = n - (since?.get(list) ?? 0);
      if (more > 0) said.set(list, more);
    }
    const count = [...said.values()].reduce((sum, n) => sum + n, 0);
    const note = done === 'kept' ? keptNote(said) : twiceNote(count, done);
    for (const [list, more] of said) {
      const left = lists.get(list)! - more;
      if (left > 0) lists.set(list, left);
      else lists.delete(list);
    }
    if (note !== undefined) say(note);
  }

  /** How many items each list read so far kept once, not said yet (a `since` for sayTwice). */
  twiceSoFar(): ReadonlyMap<string, number> {
    return new Map(this.#transport.api.keptTwice);
  }

  /** The server's clock minus this machine's (ms), from the latest answer's Date header. */
  get serverClockOffsetMs(): number | undefined {
    return this.#transport.api.serverClockOffsetMs;
  }

  /** The run's tenant id (a slug resolved to its id), or undefined when the run names none. */
  tenantId(): Promise<string | undefined> {
    return this.#transport.api.tenantId();
  }

  get roles(): Roles {
    this.#roles ??= new Roles(this.#transport);
    return this.#roles;
  }

  get tenants(): Tenants {
    this.#tenants ??= new Tenants(this.#transport);
    return this.#tenants;
  }

  get webhooks(): Webhooks {
    this.#webhooks ??= new Webhooks(this.#transport);
    return this.#webhooks;
  }

  get oauth(): OAuth {
    this.#oauth ??= new OAuth(this.#transport);
    return this.#oauth;
  }

  get records(): Records {
    this.#records ??= new Records(this.#transport);
    return this.#records;
  }

  get me(): Identity {
    this.#me ??= new Identity(this.#transport);
    return this.#me;
  }

  get users(): Users {
    this.#users ??= new Users(this.#transport);
    return this.#users;
  }

  get audit(): AuditTrail {
    this.#audit ??= new AuditTrail(this.#transport);
    return this.#audit;
  }

  /** The sandbox's test controls (/_sandbox): `svc sandbox trigger`, `svc sandbox target`. */
  get sandbox(): SandboxControls {
    this.#sandbox ??= new SandboxControls(this.#transport);
    return this.#sandbox;
  }
}
