import type { Command } from 'commander';

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.configureHelp({ showGlobalOptions: false, sortSubcommands: false, helpWidth: 100 });
  command.outputHelp();
  return text.trimEnd();
}

function walk(command: Command, path: string[]): Array<{ path: string[]; command: Command }> {
  const children = command.commands.filter(
    (c) => c.name() !== 'help' && !(c as unknown as { _hidden?: boolean })._hidden,
  );
  return [{ path, command }, ...children.flatMap((c) => walk(c, [...path, c.name()]))];
}

/**
 * docs/cli.md: every command's help, generated from the command tree. `root` is the program as
 * `svc --help` builds it (its commands listed by their summaries), for the top-level section.
 */
export function cliReference(program: Command, root: Command = program): string {
  const entries = walk(program, ['svc']);
  const anchor = (path: string[]) => path.join('-');
  const lines = [
    '# svc command reference',
    '',
    'Generated from the command tree by `npm run generate`; a test fails when it is stale. The same',
    'text is `svc COMMAND --help`. Global options (listed under `svc`) work with every command.',
    '',
    ...entries
      .slice(1)
      .map((e) => `${'  '.repeat(e.path.length - 2)}- [${e.path.join(' ')}](#${anchor(e.path)})`),
    '',
  ];
  for (const { path, command } of entries) {
    const help = helpOf(path.length === 1 ? root : command);
    lines.push(`<a id="${anchor(path)}"></a>`, '', `## ${path.join(' ')}`, '', '```text', help, '```', '');
  }
  return lines.join('\n');
}
