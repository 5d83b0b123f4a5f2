import { Command } from 'commander';
import { generatedFiles } from '../../completion/generated.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples, type MakeContext } from '../kit.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The completion script of a shell for the full command tree. */
export async function completionScript(shell: Shell): Promise<string> {
  const files = await generatedFiles();
  return files[
    shell === 'bash' ? 'completions/svc.bash' : shell === 'zsh' ? 'completions/_svc' : 'completions/svc.fish'
  ]!;
}

export async function runCompletion(ctx: Context, shell: string): Promise<void> {
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(`unknown shell ${JSON.stringify(shell)}; svc completes bash, zsh and fish`);
  }
  await ctx.out.write(await completionScript(shell as Shell));
}

export default function completion(make: MakeContext): Command {
  return new Command('completion')
    .summary('Print a shell completion script (bash, zsh, fish)')
    .description(
      'Print the completion script for a shell. It completes commands, flags and flag values, and asks\n' +
        'svc at TAB time for profile names, tenants, role names and webhook ids (with a short timeout).',
    )
    .argument('<shell>', SHELLS.join(', '))
    .addHelpText(
      'after',
      examples(
        ['svc completion bash > ~/.local/share/bash-completion/completions/svc', 'bash'],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a zsh expansion in the example, not a template
        ['svc completion zsh > "${fpath[1]}/_svc"', 'zsh (then restart it)'],
        ['svc completion fish > ~/.config/fish/completions/svc.fish', 'fish'],
      ),
    )
    .action(async (shell: string, _flags: unknown, cmd: Command) => runCompletion(await make(cmd), shell));
}
