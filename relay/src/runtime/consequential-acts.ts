import { z } from 'zod';

/**
 * Acts that wait for a person's yes (spec §20): config.json's `confirm`
 * names them, and this decides, purely, whether an act is one. An act the
 * agent asks for is checked against the rules before it runs
 * (driver/acts/act-consequence.ts finds what it would set off, the service asks
 * the person: service/confirm-service.ts).
 *
 * A rule names one kind of act:
 * - `target`: a click (or Enter, or Space) on an element of a role, whose
 *   accessible name matches a pattern (case-insensitive), as the browser
 *   names it where the click lands;
 * - `formTo`: submitting a form whose action is on one of these domains
 *   (or their subdomains);
 * - `download`: a download whose file name ends with one of these types;
 * - `pageTool`: a tool the page itself offers (WebMCP), annotated as
 *   consequential by the page (the page-tools feature asks `matchPageTool`).
 */

const RuleName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'lowercase letters, digits and hyphens, at most 64');

export const ConfirmRuleSchema = z.union([
  z.strictObject({
    name: RuleName,
    target: z.strictObject({
      role: z.array(z.string().min(1)).min(1).default(['button', 'link', 'menuitem']).describe('The roles it applies to'),
      name: z.string().min(1).refine(validPattern, 'must be a valid regular expression').describe('A pattern the accessible name matches (case-insensitive)'),
    }),
  }),
  z.strictObject({ name: RuleName, formTo: z.array(z.string().regex(/^[a-z0-9.-]+$/i, 'a domain, without scheme or port')).min(1) }),
  z.strictObject({ name: RuleName, download: z.array(z.string().regex(/^\.?[a-z0-9]+$/i, 'a file type like "exe"')).min(1) }),
  z.strictObject({ name: RuleName, pageTool: z.literal(true) }),
]);
export type ConfirmRule = z.infer<typeof ConfirmRuleSchema>;

/** Buttons and links that spend money, the file types that run as programs, and pages' own consequential tools. */
export const DEFAULT_CONFIRM_RULES: ConfirmRule[] = [
  {
    name: 'payments',
    target: {
      role: ['button', 'link', 'menuitem'],
      name: '^\\s*(pay|buy|purchase|place (my |your |the )?order|complete (my |your |the )?(purchase|order|payment)|confirm (and pay|purchase|payment|order)|check ?out|transfer|send money|donate|subscribe and pay)\\b',
    },
  },
  {
    name: 'executables',
    download: ['exe', 'msi', 'msix', 'dmg', 'pkg', 'app', 'deb', 'rpm', 'apk', 'appimage', 'bat', 'cmd', 'com', 'scr', 'ps1', 'vbs', 'jar', 'sh', 'run'],
  },
  { name: 'page-tools', pageTool: true },
];

export const ConfirmConfigSchema = z
  .strictObject({
    /** The acts that wait for a yes; the defaults above when left out, none with []. */
    rules: z.array(ConfirmRuleSchema).default(DEFAULT_CONFIRM_RULES),
    /**
     * Whether a person can be asked: `auto` when the profile is the person's own Chrome (extension), the
     * operator's console is open, or the caller says a person is at hand (they answer in the console); `always`; `never` (refused).
     */
    askPerson: z.enum(['auto', 'always', 'never']).default('auto'),
    /** How long a person has to answer (seconds). */
    waitSeconds: z.number().int().min(10).max(3600).default(300),
  })
  .refine((config) => new Set(config.rules.map((rule) => rule.name)).size === config.rules.length, { message: 'rule names must differ', path: ['rules'] });
export type ConfirmConfig = z.infer<typeof ConfirmConfigSchema>;

function validPattern(pattern: string): boolean {
  try {
    new RegExp(pattern, 'i');
    return true;
  } catch {
    return false;
  }
}

/** An act that a rule names: which rule, and what it is, in words a person reads. */
export interface Consequence {
  rule: string;
  /** The act as a person reads it: `click button "Pay"`, `submit a form to bank.example`. */
  act: string;
  /** The element acted on, as the browser names it (a page's words). */
  target?: { role: string; name: string };
  /** Where it is, in the viewport's CSS pixels, to be shown to the person. */
  box?: { x: number; y: number; width: number; height: number };
}

/** The first target rule an element (its role and accessible name) matches. */
export function matchTarget(rules: ConfirmRule[], target: { role: string; name: string }): ConfirmRule | undefined {
  return rules.find((rule) => 'target' in rule && rule.target.role.includes(target.role) && new RegExp(rule.target.name, 'i').test(target.name));
}

/** The first rule naming the domain (or a parent domain) a form is submitted to. */
export function matchForm(rules: ConfirmRule[], action: string): ConfirmRule | undefined {
  let host: string;
  try {
    host = new URL(action).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  return rules.find((rule) => 'formTo' in rule && rule.formTo.some((domain) => host === domain.toLowerCase() || host.endsWith(`.${domain.toLowerCase()}`)));
}

/** The first rule naming a download's file type. */
export function matchDownload(rules: ConfirmRule[], fileName: string): ConfirmRule | undefined {
  const type = /\.([a-z0-9]+)$/i.exec(fileName.trim())?.[1]?.toLowerCase();
  if (!type) return undefined;
  return rules.find((rule) => 'download' in rule && rule.download.some((wanted) => wanted.replace(/^\./, '').toLowerCase() === type));
}

/** For page-provided tools (WebMCP): one the page annotates as consequential waits for a yes when a rule says so. */
export function matchPageTool(rules: ConfirmRule[], annotations: { consequential?: boolean; destructiveHint?: boolean }): ConfirmRule | undefined {
  if (!annotations.consequential && !annotations.destructiveHint) return undefined;
  return rules.find((rule) => 'pageTool' in rule);
}

/** A rule as a person reads it, for answers and the audit. */
export function describeRule(rule: ConfirmRule): string {
  if ('target' in rule) return `${rule.target.role.join(' or ')} named /${rule.target.name}/i`;
  if ('formTo' in rule) return `a form sent to ${rule.formTo.join(', ')}`;
  if ('download' in rule) return `a download of type ${rule.download.join(', ')}`;
  return 'a page tool the page marks consequential';
}
