import { Command } from 'commander';
import { generatedFiles } from '../../completion/generated.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { quoted } from '../../output/format.js';
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
    throw new UsageError(`unknown shell ${quoted(shell)}; svc completes bash, zsh and fish`);
  }
  await ctx.out.write(await completionScript(shell as Shell));
}

export default function completion(make: MakeContext): Command {
  return new Command('completion')
    .summary('Print a shell completion script (bash, zsh, fish)')
    .description(
      'Print the completion script for a shell. It completes commands, flags and flag values, and asks\n' +
        'svc at TAB time for profile names, tenants, role names and webhook ids (with a short timeout).\n' +
        'After upgrading svc, write an installed script file again: to a script an older svc wrote, svc\n' +
        'gives only the values no shell would expand (older bash scripts ran $(…) in them).',
    )
    .argument('<shell>', SHELLS.join(', '))
    .addHelpText(
      'after',
      examples(
        ["echo 'source <(svc completion bash)' >> ~/.bashrc", 'bash (then open a new shell)'],
        [
          'mkdir -p ~/.local/share/bash-completion/completions && svc completion bash > ~/.local/share/bash-completion/completions/svc',
          'bash with the bash-completion package (2.0 or later), which loads it at the first TAB',
        ],
        [
          "mkdir -p ~/.zfunc && svc completion zsh > ~/.zfunc/_svc && echo 'fpath=(~/.zfunc $fpath); autoload -Uz compinit; compinit' >> ~/.zshrc",
          'zsh: a directory of your own on fpath (then restart it)',
        ],
        [
          'mkdir -p ~/.config/fish/completions && svc completion fish > ~/.config/fish/completions/svc.fish',
          'fish',
        ],
      ),
    )
    .action(async (shell: string, _flags: unknown, cmd: Command) => runCompletion(await make(cmd), shell));
}
