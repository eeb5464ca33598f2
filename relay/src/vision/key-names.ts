/**
 * Keys as each vendor's models name them, to the names Playwright's keyboard
 * takes. OpenAI's computer-use models send a list of keys pressed together
 * (`["CTRL", "A"]`, in capitals, named like DOM keys); Anthropic's computer
 * tool sends xdotool's syntax (`ctrl+a`, `Return`, `Page_Down`, several
 * chords separated by spaces). A letter is its key on the keyboard (`KeyA`),
 * so the shift held with it decides its case, as on a real keyboard: Ctrl+Z
 * reaches the page as `z` with ctrlKey, as a person's would.
 *
 * A name neither list knows is refused by name (`UnknownKeyError`), before
 * any key goes down.
 */

export class UnknownKeyError extends Error {
  constructor(readonly key: string) {
    super(`no key is named ${JSON.stringify(key)}`);
  }
}

/** Names shared by both vendors (lower case): DOM key names and the usual short forms. */
const COMMON: Record<string, string> = {
  enter: 'Enter',
  return: 'Enter',
  tab: 'Tab',
  space: 'Space',
  backspace: 'Backspace',
  delete: 'Delete',
  del: 'Delete',
  escape: 'Escape',
  esc: 'Escape',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  pagedown: 'PageDown',
  insert: 'Insert',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  arrowup: 'ArrowUp',
  arrowdown: 'ArrowDown',
  arrowleft: 'ArrowLeft',
  arrowright: 'ArrowRight',
  ctrl: 'Control',
  control: 'Control',
  shift: 'Shift',
  alt: 'Alt',
  option: 'Alt',
  meta: 'Meta',
  cmd: 'Meta',
  command: 'Meta',
  super: 'Meta',
  win: 'Meta',
  capslock: 'CapsLock',
};

/** xdotool keysyms beyond the common names (lower case): X11's spellings, the keypad, punctuation by name. */
const XDOTOOL: Record<string, string> = {
  kp_enter: 'NumpadEnter',
  prior: 'PageUp',
  next: 'PageDown',
  page_up: 'PageUp',
  page_down: 'PageDown',
  control_l: 'Control',
  control_r: 'Control',
  shift_l: 'Shift',
  shift_r: 'Shift',
  alt_l: 'Alt',
  alt_r: 'Alt',
  super_l: 'Meta',
  super_r: 'Meta',
  meta_l: 'Meta',
  meta_r: 'Meta',
  caps_lock: 'CapsLock',
  kp_add: 'NumpadAdd',
  kp_subtract: 'NumpadSubtract',
  kp_multiply: 'NumpadMultiply',
  kp_divide: 'NumpadDivide',
  kp_decimal: 'NumpadDecimal',
  minus: '-',
  plus: '+',
  equal: '=',
  comma: ',',
  period: '.',
  slash: '/',
  backslash: '\\',
  semicolon: ';',
  colon: ':',
  apostrophe: "'",
  quotedbl: '"',
  grave: '`',
  asciitilde: '~',
  bracketleft: '[',
  bracketright: ']',
  braceleft: '{',
  braceright: '}',
  parenleft: '(',
  parenright: ')',
  less: '<',
  greater: '>',
  question: '?',
  exclam: '!',
  at: '@',
  numbersign: '#',
  dollar: '$',
  percent: '%',
  asciicircum: '^',
  ampersand: '&',
  asterisk: '*',
  underscore: '_',
  bar: '|',
};

/** One character as a key: a letter or digit is its key on the keyboard; other printable ASCII is itself. */
function characterKey(character: string): string | undefined {
  if (/^[a-z]$/i.test(character)) return `Key${character.toUpperCase()}`;
  if (/^[0-9]$/.test(character)) return `Digit${character}`;
  if (/^[!-~]$/.test(character)) return character;
  return undefined;
}

function functionKey(name: string): string | undefined {
  const match = /^f([1-9]|1[0-9]|2[0-4])$/i.exec(name);
  return match ? `F${match[1]}` : undefined;
}

/** One of OpenAI's key names (`CTRL`, `ENTER`, `ARROWLEFT`, `A`, `/`) → Playwright's; capitals carry no shift. */
export function openAiKey(name: string): string {
  const key = COMMON[name.toLowerCase()] ?? functionKey(name) ?? (name.length === 1 ? characterKey(name) : undefined);
  if (!key) throw new UnknownKeyError(name);
  return key;
}

/**
 * One xdotool key expression (`ctrl+shift+t`, `Return`, `KP_5`, `A`) → the
 * keys pressed together, modifiers first. An upper-case letter alone is
 * that letter with Shift, as xdotool types it.
 */
export function xdotoolChord(expression: string): string[] {
  // A chord ending in `++` ends with the + key itself.
  const parts = expression === '+' ? ['+'] : expression.endsWith('++') ? [...expression.slice(0, -2).split('+'), '+'] : expression.split('+');
  if (parts.some((part) => part === '')) throw new UnknownKeyError(expression);
  const keys: string[] = [];
  for (const part of parts) {
    const lower = part.toLowerCase();
    const keypad = /^kp_([0-9])$/.exec(lower);
    const key =
      COMMON[lower] ??
      XDOTOOL[lower] ??
      functionKey(part) ??
      (keypad ? `Numpad${keypad[1]}` : undefined) ??
      (part.length === 1 ? characterKey(part) : undefined);
    if (!key) throw new UnknownKeyError(part);
    if (part.length === 1 && /[A-Z]/.test(part) && !keys.includes('Shift')) keys.unshift('Shift');
    keys.push(key);
  }
  return keys;
}

/** xdotool's `key` argument: chords separated by spaces, pressed one after another. */
export function xdotoolKeys(text: string): string[][] {
  const chords = text.trim().split(/\s+/).filter(Boolean);
  if (!chords.length) throw new UnknownKeyError(text);
  return chords.map(xdotoolChord);
}
