/**
 * How a command prints its answer: `value` as JSON under `--json`, else the
 * text `human()` makes of it (made only when it is shown). Every command
 * group is handed one (command-table.ts).
 */
export type Print = (value: unknown, human: () => string) => void;
