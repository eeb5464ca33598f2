import { type ElementLocator, refsOf, type ScriptStep } from './script-steps.js';

/**
 * A tab's or a profile's recorded steps as a Playwright test (TypeScript),
 * runnable with `npx playwright test`: each tab a page, each navigation a
 * goto, each act the Playwright call that does it on the locator chosen when
 * it ran, the agent's waits as web-first assertions. Secrets are read from
 * the environment (`SECRET_<NAME>`), never written. What cannot be replayed
 * as recorded (an act inside a frame, a script the agent evaluated) is a
 * comment that says so, and is listed in `notes`.
 */

const q = (value: string) => JSON.stringify(value);

export interface WrittenScript {
  script: string;
  notes: string[];
}

/** How a test finds an element, as code on `page` (a routine's steps are written with it too). */
export function locatorCode(page: string, found: ElementLocator): string {
  return locator(page, found);
}

export function playwrightScript(steps: ScriptStep[], title: string, header: string): WrittenScript {
  const notes: string[] = [];
  const body: string[] = [];
  const pages = new Map<string, string>();
  let usesSecrets = false;

  /** A value as a TypeScript expression: text, with each `{{secret:NAME}}` read from the environment. */
  const textOf = (text: string): string => {
    const parts = text.split(/\{\{secret:([A-Za-z0-9_.-]{1,64})\}\}/);
    if (parts.length === 1) return q(text);
    usesSecrets = true;
    return parts
      .map((part, index) => (index % 2 ? `secret(${q(part)})` : part ? q(part) : ''))
      .filter(Boolean)
      .join(' + ');
  };
  const pageOf = (step: ScriptStep, url?: string): string => {
    const known = pages.get(step.tab);
    if (known) return known;
    const name = pages.size ? `page${pages.size + 1}` : 'page';
    pages.set(step.tab, name);
    if (name !== 'page') body.push(`const ${name} = await page.context().newPage();`);
    // A tab met first by an act was open before the recording: it starts where it was.
    if (step.kind === 'act' && url && url !== 'about:blank') body.push(`await ${name}.goto(${q(url)});`);
    return name;
  };

  for (const step of steps) {
    switch (step.kind) {
      case 'open':
      case 'goto': {
        const page = pageOf(step);
        if (step.url !== 'about:blank') body.push(`await ${page}.goto(${q(step.url)});`);
        break;
      }
      case 'close':
        body.push(`await ${pageOf(step)}.close();`);
        break;
      case 'upload':
        body.push(
          `// the files a person chose, named as they were: put them beside the test`,
          `await ${locator(pageOf(step), step.element)}.setInputFiles(${JSON.stringify(step.files)});`,
        );
        break;
      case 'act': {
        const page = pageOf(step, step.url);
        const lines = actLines(page, step, textOf);
        if (typeof lines === 'string') {
          notes.push(lines);
          body.push(`// ${lines}`);
        } else body.push(...lines);
        break;
      }
    }
  }

  const out = [`import { test, expect } from '@playwright/test';`, '', `// ${header}`];
  if (usesSecrets) {
    out.push(
      '',
      '/** Secrets are not in this script: each comes from SECRET_<NAME> in the environment. */',
      'function secret(name: string): string {',
      '  const value = process.env[`SECRET_${name}`];',
      '  if (value === undefined) throw new Error(`set SECRET_${name} to run this test`);',
      '  return value;',
      '}',
    );
  }
  out.push('', `test(${q(title)}, async ({ page }) => {`, ...body.map((line) => `  ${line}`), '});', '');
  return { script: out.join('\n'), notes };
}

/** One act as lines of the test, or the reason it is not written out. */
function actLines(page: string, step: Extract<ScriptStep, { kind: 'act' }>, textOf: (text: string) => string): string[] | string {
  const { action, elements, typedAs } = step;
  const refs = refsOf(action);
  for (const ref of refs) {
    const found = elements[ref];
    if (!found) return `${action.kind} on ${ref}: the element was gone when it ran, not written out`;
    if (found.frame) return `${action.kind} on ${ref}, inside frame ${found.frame}: not written out (refs in frames are not exported yet)`;
  }
  const at = (ref: string) => locator(page, elements[ref]);
  const cssNote = refs.some((ref) => elements[ref].by === 'css')
    ? [`// a CSS path: the element had no unique role and name, test id or text; it may break when the page changes`]
    : [];
  switch (action.kind) {
    case 'click': {
      const count = action.count ?? (action.double ? 2 : 1);
      const options = [
        action.button && action.button !== 'left' ? `button: ${q(action.button)}` : '',
        action.modifiers?.length ? `modifiers: ${JSON.stringify(action.modifiers)}` : '',
      ].filter(Boolean);
      if (action.ref === undefined) {
        const all = [...options, ...(count > 1 ? [`clickCount: ${count}`] : [])];
        return [`await ${page}.mouse.click(${action.x}, ${action.y}${all.length ? `, { ${all.join(', ')} }` : ''});`];
      }
      if (count === 3) options.push('clickCount: 3');
      return [...cssNote, `await ${at(action.ref)}.${count === 2 ? 'dblclick' : 'click'}(${options.length ? `{ ${options.join(', ')} }` : ''});`];
    }
    case 'type': {
      const typed =
        typedAs === 'keys' || action.slowly
          ? [`await ${at(action.ref)}.pressSequentially(${textOf(action.text)});`]
          : [`await ${at(action.ref)}.fill(${textOf(action.text)});`];
      return [...cssNote, ...typed, ...(action.submit ? [`await ${at(action.ref)}.press('Enter');`] : [])];
    }
    case 'press':
      return [`await ${page}.keyboard.press(${q(action.key)});`];
    case 'hover':
      return [...cssNote, `await ${at(action.ref)}.hover();`];
    case 'move':
      return [`await ${page}.mouse.move(${action.x}, ${action.y}${action.steps ? `, { steps: ${action.steps} }` : ''});`];
    case 'mousedown':
    case 'mouseup': {
      const button = action.button && action.button !== 'left' ? `{ button: ${q(action.button)} }` : '';
      return [
        ...(action.x !== undefined ? [`await ${page}.mouse.move(${action.x}, ${action.y});`] : []),
        `await ${page}.mouse.${action.kind === 'mousedown' ? 'down' : 'up'}(${button});`,
      ];
    }
    case 'drag': {
      if (action.startRef !== undefined && action.endRef !== undefined && action.steps === undefined)
        return [...cssNote, `await ${at(action.startRef)}.dragTo(${at(action.endRef)});`];
      const lines: string[] = [...cssNote];
      const point = (ref: string | undefined, x: number | undefined, y: number | undefined, name: string): string => {
        if (ref === undefined) return `${x}, ${y}`;
        lines.push(`const ${name} = (await ${at(ref)}.boundingBox())!;`);
        return `${name}.x + ${name}.width / 2, ${name}.y + ${name}.height / 2`;
      };
      const from = point(action.startRef, action.x, action.y, 'dragFrom');
      const to = point(action.endRef, action.endX, action.endY, 'dragTo');
      // One block per drag: its boxes' names stay its own.
      return [
        `{`,
        ...lines.map((line) => `  ${line}`),
        `  await ${page}.mouse.move(${from});`,
        `  await ${page}.mouse.down();`,
        `  await ${page}.mouse.move(${to}, { steps: ${action.steps ?? 20} });`,
        `  await ${page}.mouse.up();`,
        `}`,
      ];
    }
    case 'select-text': {
      const path = step.path ?? (action.x !== undefined ? { from: { x: action.x, y: action.y! }, to: { x: action.endX!, y: action.endY! } } : undefined);
      if (action.ref !== undefined && action.text === undefined && !step.path) return [...cssNote, `await ${at(action.ref)}.selectText();`];
      if (!path) return `select-text on ${action.ref ?? 'the page'}: selected inside a field or by the page's Selection API, not written out`;
      const note = step.path
        ? [`// the text ${action.text !== undefined ? q(action.text) : ''} selected with the mouse, where it was on the page when recorded`]
        : [];
      return [
        ...note,
        `await ${page}.mouse.move(${path.from.x}, ${path.from.y});`,
        `await ${page}.mouse.down();`,
        `await ${page}.mouse.move(${path.to.x}, ${path.to.y}, { steps: 6 });`,
        `await ${page}.mouse.up();`,
      ];
    }
    case 'scroll':
      return [
        ...(action.x !== undefined && action.y !== undefined ? [`await ${page}.mouse.move(${action.x}, ${action.y});`] : []),
        `await ${page}.mouse.wheel(${action.deltaX}, ${action.deltaY});`,
      ];
    case 'select':
      return [...cssNote, `await ${at(action.ref)}.selectOption(${JSON.stringify(action.values)});`];
    case 'fill':
      return [
        ...cssNote,
        ...action.fields.map((field) =>
          typeof field.value === 'boolean' ? `await ${at(field.ref)}.setChecked(${field.value});` : `await ${at(field.ref)}.fill(${textOf(field.value)});`,
        ),
      ];
    case 'wait': {
      const timeout = action.timeoutMs !== undefined ? `{ timeout: ${action.timeoutMs} }` : '';
      if (action.text !== undefined) return [`await expect(${page}.getByText(${q(action.text)}).first()).toBeVisible(${timeout});`];
      if (action.textGone !== undefined) return [`await expect(${page}.getByText(${q(action.textGone)})).toHaveCount(0${timeout ? `, ${timeout}` : ''});`];
      if (action.selector !== undefined) return [`await ${page}.locator(${q(action.selector)}).first().waitFor(${timeout});`];
      return [`await ${page}.waitForTimeout(${action.timeMs});`];
    }
    case 'resize':
      return [`await ${page}.setViewportSize({ width: ${action.width}, height: ${action.height} });`];
    case 'evaluate':
      return `the agent evaluated a script here (${action.fn.replace(/\s+/g, ' ').slice(0, 60)}…): not written out, as it read the page rather than acted`;
    case 'close':
      return [`await ${page}.close();`];
  }
}

function locator(page: string, found: ElementLocator): string {
  // Inside frames: each found by its element in its parent's document, as Playwright's codegen writes it.
  const root = (found.frames ?? []).reduce((parent, frame) => `${parent}.locator(${q(frame)}).contentFrame()`, page);
  switch (found.by) {
    case 'role':
      return `${root}.getByRole(${q(found.role!)}, { name: ${q(found.name!)}${found.exact ? ', exact: true' : ''} })`;
    case 'label':
      return `${root}.getByLabel(${q(found.value!)}, { exact: true })`;
    case 'testid':
      return `${root}.getByTestId(${q(found.value!)})`;
    case 'text':
      return `${root}.getByText(${q(found.value!)}, { exact: true })`;
    case 'css':
      return `${root}.locator(${q(found.value!)})`;
  }
}
