// A destructive confirmation is answered only by keys typed once it is shown: `svc roles delete R`
// followed at once by `y⏎`, typed before the question appeared, deleted the role. The keys waiting
// on the terminal are dropped before the question is drawn (src/system/type-ahead.ts). Driven
// with the real Inquirer prompter over a fake terminal.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { confirmDestructive } from '../../src/commands/kit.js';
import { inquirerPrompter } from '../../src/system/prompter.js';
import { testContext, useTempDirs } from '../helpers/context.js';

const dirs = useTempDirs();

/** A terminal's stdin (isTTY) holding `typedAhead`, and a context whose prompts are Inquirer's on it. */
function terminal(typedAhead: string) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  if (typedAhead) stdin.write(typedAhead);
  const screen = new PassThrough();
  let drawn = '';
  screen.on('data', (chunk: Buffer) => {
    drawn += chunk.toString('utf8');
  });
  const made = testContext({
    env: dirs(),
    tty: true,
    stdin,
    prompter: inquirerPrompter(stdin, screen, { color: false }),
  });
  const shown = async () => {
    const deadline = Date.now() + 5000;
    while (!drawn.includes('(y/N)')) {
      if (Date.now() > deadline) throw new Error(`the question was not drawn: ${drawn}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return { ctx: made.ctx, stdin, shown, drawn: () => drawn };
}

describe('confirmDestructive and keys typed ahead', () => {
  it('a "y⏎" typed before the question does not answer it: the Enter typed after it does (No)', async () => {
    const t = terminal('y\r');
    const asked = confirmDestructive(t.ctx, 'Delete role typeahead_role?', 'deleting role typeahead_role');
    const settled = asked.then(
      () => 'confirmed',
      (error: Error) => error.message,
    );
    await t.shown();
    await new Promise((resolve) => setTimeout(resolve, 50));
    t.stdin.write('\r');
    expect(await settled).toBe('cancelled; nothing was changed');
    expect(t.drawn()).toContain('Delete role typeahead_role? No');
  });

  it('a "y⏎" typed once the question is shown confirms', async () => {
    const t = terminal('');
    const asked = confirmDestructive(t.ctx, 'Delete role typeahead_role?', 'deleting role typeahead_role');
    await t.shown();
    t.stdin.write('y\r');
    await expect(asked).resolves.toBeUndefined();
    expect(t.drawn()).toContain('Delete role typeahead_role? Yes');
  });
});
