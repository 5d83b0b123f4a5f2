import type { Readable, Writable } from 'node:stream';
import { InterruptedError } from '../errors.js';

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
}

/** Interactive questions. Only used when the Context says it can prompt (stdin and stdout are TTYs). */
export interface Prompter {
  input(
    message: string,
    options?: { default?: string; validate?: (value: string) => true | string },
  ): Promise<string>;
  password(message: string): Promise<string>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
  select<T>(message: string, choices: Array<Choice<T>>): Promise<T>;
}

/**
 * Inquirer's prompts on the given terminal streams; Ctrl-C at a prompt means exit 130. Each
 * prompt is its own package: the @inquirer/prompts barrel also bundles the editor prompt and
 * its iconv-lite (about 540 KB of the bundle) for nothing.
 */
export function inquirerPrompter(input: Readable, output: Writable): Prompter {
  const context = { input, output, clearPromptOnDone: false };
  const guard = async <T>(ask: () => Promise<T>): Promise<T> => {
    try {
      return await ask();
    } catch (error) {
      if ((error as Error)?.name === 'ExitPromptError' || (error as Error)?.name === 'AbortPromptError') {
        throw new InterruptedError('cancelled at the prompt');
      }
      throw error;
    }
  };
  return {
    input: (message, options = {}) =>
      guard(async () => {
        const { default: ask } = await import('@inquirer/input');
        return ask(
          {
            message,
            ...(options.default === undefined ? {} : { default: options.default }),
            ...(options.validate ? { validate: options.validate } : {}),
          },
          context,
        );
      }),
    password: (message) =>
      guard(async () => {
        const { default: password } = await import('@inquirer/password');
        return password({ message, mask: '*' }, context);
      }),
    confirm: (message, defaultValue = false) =>
      guard(async () => {
        const { default: confirm } = await import('@inquirer/confirm');
        return confirm({ message, default: defaultValue }, context);
      }),
    select: (message, choices) =>
      guard(async () => {
        const { default: select } = await import('@inquirer/select');
        return select({ message, choices, pageSize: 12 }, context);
      }),
  };
}
