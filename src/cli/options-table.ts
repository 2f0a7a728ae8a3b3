import { COMMANDS, OPTIONS } from './options.js';

/** The README's option table, from the same table as --help. */
export function optionsTable(): string {
  const rows = OPTIONS.filter((option) => option.name !== 'help' && option.name !== 'version').map((option) => {
    const flags = `${option.short ? `\`-${option.short}\`, ` : ''}\`--${option.name}${option.value ? ` ${option.value}` : ''}\``;
    const commands = option.commands.length === COMMANDS.length ? 'all' : option.commands.join(', ');
    return `| ${flags} | ${commands} | ${option.description.replace(/\|/g, '\\|')} |`;
  });
  return ['| option | commands | meaning |', '|---|---|---|', ...rows].join('\n');
}
