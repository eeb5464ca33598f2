import { BadRequestError } from '../errors.js';

/**
 * MCP capability groups: the default tool list is what most agents need,
 * and every tool definition is sent to the model on every turn, so the rest
 * come in groups a client turns on (`clawd-browser mcp --caps emulation,storage`,
 * `/mcp?caps=…`), as Playwright MCP's `--caps` does. A tool of a group that is
 * off is not listed; calling it says which group turns it on.
 */

export const CAPABILITY_GROUPS = {
  vision: "labelled screenshots, and computer use by coordinates (Anthropic's computer tool actions)",
  files: 'uploads, downloads, saving a page as PDF',
  recording: 'the network log, bodies, HAR, Playwright traces, console messages',
  dialogs: 'arm the answer to the next alert, confirm or prompt (unarmed ones are dismissed)',
  emulation: 'devices, place, time, language, colour scheme, network and CPU conditions, headers, HTTP credentials',
  network: 'network routes (fulfil, abort, change requests) and init scripts',
  storage: 'cookies, localStorage and sessionStorage, storage state',
  handoff: 'hand a tab to a person (a login, 2FA, a CAPTCHA) and wait for their answer',
  browse: 'give a goal: a browsing model of the configured provider does it and answers (spec §24)',
  routines: 'run routines a person recorded by showing, by name with parameters; read their notes on a page and mark them done',
} as const;

export type CapabilityGroup = keyof typeof CAPABILITY_GROUPS;

/** `emulation,storage` (or `all`) → the groups; a name that is none is a 400 naming the ones there are. */
export function parseCaps(value: string | undefined): CapabilityGroup[] {
  if (!value?.trim()) return [];
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.includes('all')) return Object.keys(CAPABILITY_GROUPS) as CapabilityGroup[];
  const unknown = names.filter((name) => !(name in CAPABILITY_GROUPS));
  if (unknown.length)
    throw new BadRequestError(
      `Invalid caps: no group is named ${unknown.map((name) => JSON.stringify(name)).join(', ')}; the groups are ${Object.keys(CAPABILITY_GROUPS).join(', ')} (or all)`,
    );
  return [...new Set(names)] as CapabilityGroup[];
}
