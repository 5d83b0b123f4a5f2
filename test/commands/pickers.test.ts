/**
 * The pickers a command falls back on at a terminal when its TENANT or WEBHOOK is left out
 * (src/commands/pick.ts): they offer every tenant or webhook the caller can see, page after page,
 * and past PICK_LIMIT they ask for the argument instead of showing part of the list as the whole.
 * The keys pressed in a real terminal: test/e2e/prompts.test.ts (tmux); no prompt without a
 * terminal: test/commands/no-terminal-prompts.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PICK_LIMIT } from '../../src/commands/pick.js';
import type { Choice, Prompter } from '../../src/system/prompter.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { admin } from '../helpers/webhooks.js';

/** A prompter that records the choices of its one select and picks the first or the last. */
function picking(which: 'first' | 'last'): Prompter & { offered: string[] } {
  const offered: string[] = [];
  const refuse = () => Promise.reject(new Error('unexpected prompt'));
  return {
    offered,
    input: refuse,
    password: refuse,
    confirm: refuse,
    select: async <T>(_message: string, choices: Array<Choice<T>>) => {
      offered.push(...choices.map((c) => c.name));
      return choices.at(which === 'first' ? 0 : -1)!.value;
    },
  };
}

// As an org_admin listing its organisation (SVC_ORG), with no tenant set.
const atTerminal = { tty: true, env: { SVC_TENANT: undefined, SVC_ORG: 'org_demo' } } as const;

describe('the tenant picker', () => {
  // org_demo's five seeded tenants and 250 more: past the 200 of one page.
  const svc = useSandboxContext({ tenants: 250 });

  it('offers every tenant the caller can see, not only the first page', async () => {
    const prompter = picking('first');
    const r = await svc.run(['tenants', 'api-keys', 'ls', '--json'], { ...atTerminal, prompter });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(prompter.offered).toHaveLength(255);
    expect(new Set(prompter.offered).size).toBe(255);
    expect(prompter.offered).toContain('Bulk Tenant 000250 (bulk-000250)');
  });
});

describe('the tenant picker past its limit', () => {
  const svc = useSandboxContext({ tenants: PICK_LIMIT });

  it('asks for the tenant instead of offering part of the list (exit 2)', async () => {
    const prompter = picking('last');
    const r = await svc.run(['tenants', 'api-keys', 'ls'], { ...atTerminal, prompter });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: you can see more than ${PICK_LIMIT} tenants, too many to choose from; pass the TENANT (id or slug), or set the profile's tenant; see \`svc tenants ls\`\n`,
    });
    expect(prompter.offered).toEqual([]);
  });
});

describe('the webhook picker', () => {
  const svc = useSandboxContext();

  it('offers every webhook of the tenant, not only the first page of 50', async () => {
    for (let i = 1; i <= 60; i++) {
      const created = await admin(svc.sandbox(), 'POST', '/v1/webhooks', {
        url: `https://hooks.example.com/picker/${i}`,
        event_types: ['exception.created'],
      });
      expect(created.status).toBe(201);
    }
    const total = (await admin(svc.sandbox(), 'GET', '/v1/webhooks?limit=200')).body.items.length;
    expect(total).toBeGreaterThan(60);
    const prompter = picking('last');
    const r = await svc.run(['webhooks', 'get', '--json'], { tty: true, prompter });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(prompter.offered).toHaveLength(total);
    expect(JSON.parse(r.stdout).url).toBe('https://hooks.example.com/picker/60');
  });
});
