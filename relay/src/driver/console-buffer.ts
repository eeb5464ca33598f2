import type { Page } from 'playwright-core';
import type { ConsoleMessage } from '../api/responses.js';
import { BadRequestError } from '../errors.js';

/**
 * A tab's console (`GET /console`): what the page logged and the errors it
 * did not catch, since the driver first saw the tab, the newest
 * CONSOLE_LIMIT kept.
 */

const CONSOLE_LIMIT = 1000;
/** Severity order for `GET /console?level=`: that level and worse. */
const LEVELS = ['debug', 'log', 'info', 'warning', 'error'] as const;

function levelOf(type: string): string {
  if (type === 'warn') return 'warning';
  if (type === 'trace' || type === 'verbose') return 'debug';
  return LEVELS.includes(type as (typeof LEVELS)[number]) ? type : 'log';
}

export class ConsoleBuffer {
  private readonly messages: ConsoleMessage[] = [];

  constructor(page: Page) {
    page.on('console', (message) => {
      const location = message.location();
      this.messages.push({
        level: levelOf(message.type()),
        text: message.text(),
        timestamp: Date.now(),
        url: location.url || undefined,
        line: location.lineNumber,
      });
      if (this.messages.length > CONSOLE_LIMIT) this.messages.splice(0, this.messages.length - CONSOLE_LIMIT);
    });
    page.on('pageerror', (error) => {
      this.messages.push({ level: 'error', text: `Uncaught ${error.name}: ${error.message}`, timestamp: Date.now() });
    });
  }

  /** The messages of `level` and worse (all when no level is given); a 400 for a level that is not one. */
  atLeast(level: string | undefined): ConsoleMessage[] {
    const min = level ? LEVELS.indexOf(level as (typeof LEVELS)[number]) : 0;
    if (min < 0) throw new BadRequestError(`Unknown level ${JSON.stringify(level)}: one of ${LEVELS.join(', ')}`);
    return this.messages.filter((entry) => LEVELS.indexOf(entry.level as (typeof LEVELS)[number]) >= min);
  }
}
