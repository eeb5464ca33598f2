/** Logs go to stderr: stdout belongs to command output (and, for the native host, to frames). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function createLogger(level: LogLevel = 'info', scope = 'clawd-browser'): Logger {
  const threshold = ORDER.indexOf(level);
  const at = (wanted: LogLevel) => (message: string) => {
    if (ORDER.indexOf(wanted) >= threshold) process.stderr.write(`${new Date().toISOString()} ${wanted} [${scope}] ${message}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
