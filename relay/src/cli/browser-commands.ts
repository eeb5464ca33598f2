import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { BadRequestError } from '../errors.js';
import { AGENT_SNAPSHOT_CHARS } from '../api/limits.js';
import { labelLine } from '../mcp/vision-lines.js';
import { fenced, fencedAfterNotes } from '../api/page-content.js';
import { actAnswer } from '../api/act-answer.js';
import type { ActionResult } from '../api/responses.js';
import { BrowserClient } from '../client/browser-client.js';
import { withProgress } from './progress.js';
import type { Print } from './print.js';

/** The commands that talk to a running server through the typed client (spec §10). */

/** A count, a size or milliseconds, said as such when it is not one ("resize abc 600"). */
function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

/** The aria tree for a reader: how much a person could not see, then the tree itself, the page's words, fenced. */
function ariaLines(snapshot: { nodes: unknown[]; hidden?: number; fence?: string }): string {
  const tree = fenced(snapshot.fence, [JSON.stringify(snapshot.nodes, null, 2)]);
  return snapshot.hidden ? `[hidden text left out of the tree: ${snapshot.hidden} block${snapshot.hidden === 1 ? '' : 's'}]\n${tree}` : tree;
}

export function addBrowserCommands(program: Command, client: () => BrowserClient, print: Print): void {
  const waiting = <T>(label: string, work: Promise<T>) => withProgress(label, work, { json: program.opts().json === true });
  const tabLine = (tab: { targetId: string; url: string; title: string }) => `${tab.targetId}  ${tab.title || '(untitled)'}  ${tab.url}`;
  // One tab: its id (clawd's) leads; its title and URL are the page's words, fenced.
  const tabDone = (done: string, tab: { targetId: string; url: string; title: string; fence?: string }) =>
    `${done}${tab.targetId}\n${fenced(tab.fence, [`${tab.title || '(untitled)'}  ${tab.url}`])}`;

  program
    .command('status')
    .description("the profile's browser: enabled, running, pid, CDP port or URL, attached tabs")
    .action(async () => {
      const status = await client().status();
      print(status, () =>
        Object.entries(status)
          .map(([key, value]) => `${key}: ${value}`)
          .join('\n'),
      );
    });
  program
    .command('dashboard')
    .description('open the dashboard (profiles, live tabs, recent actions) in your browser through a one-time link')
    .option('--no-open', 'only print the link')
    .action(async (options: { open: boolean }) => {
      const link = await client().dashboardLink();
      print(link, () => link.url);
      if (options.open) openInBrowser(link.url);
    });
  program
    .command('start')
    .description("start (or connect to) the profile's browser")
    .action(async () => print(await waiting("starting the profile's browser", client().start()), () => 'started'));
  program
    .command('stop')
    .description("stop the profile's browser (managed) or disconnect from it")
    .action(async () => print(await client().stop(), () => 'stopped'));
  program
    .command('reset-profile')
    .description("kill an orphan browser holding a managed profile's port or data")
    .action(async () => {
      const result = await client().resetProfile();
      print(result, () => (result.killed.length ? `killed ${result.killed.join(', ')}` : 'nothing to kill'));
    });

  program
    .command('profiles')
    .description('list profiles')
    .action(async () => {
      const { profiles, defaultProfile } = await client().profiles();
      print({ profiles, defaultProfile }, () =>
        profiles
          .map((p) => `${p.name === defaultProfile ? '*' : ' '} ${p.name}  ${p.driver}  ${p.color}  ${p.cdpUrl ?? ''}  ${p.running ? 'running' : 'stopped'}`)
          .join('\n'),
      );
    });
  program
    .command('create-profile')
    .description('create a managed profile (or a remote one with --cdp-url)')
    .requiredOption('--name <name>', 'lowercase letters, digits, hyphens; at most 64')
    .option('--color <hex>', 'e.g. #1E88E5')
    .option('--cdp-url <url>', 'attach to a browser elsewhere instead of launching one')
    .option('--jail', 'run its browser in a jail of its own: network namespace, cgroup, own user (Linux, serve as root)')
    .action(async (options: { name: string; color?: string; cdpUrl?: string; jail?: boolean }) => {
      const profile = await client().createProfile(options);
      print(profile, () => `created ${profile.name} (${profile.driver}${profile.cdpUrl ? `, ${profile.cdpUrl}` : ''})`);
    });
  program
    .command('delete-profile')
    .description("delete a profile: stops its browser and removes a local profile's data")
    .requiredOption('--name <name>', 'the profile')
    .action(async (options: { name: string }) => print(await client().deleteProfile(options.name), () => `deleted ${options.name}`));

  program
    .command('tabs')
    .description('list tabs')
    .action(async () => {
      const list = await client().tabList();
      const { tabs } = list;
      // As the API answers. Titles and URLs are the pages' words: fenced. A person's browser lending none says how to lend one.
      print(list, () => (tabs.length ? fenced(tabs[0].fence, tabs.map(tabLine)) : `(no tabs)${list.hint ? `\n${list.hint}` : ''}`));
    });
  program
    .command('open')
    .description('open a tab')
    .argument('<url>')
    .action(async (url: string) => {
      const tab = await waiting(`opening ${url}`, client().openTab(url));
      print(tab, () => tabDone('', tab));
    });
  program
    .command('focus')
    .description('bring a tab to the front (a unique targetId prefix will do)')
    .argument('<targetId>')
    .action(async (targetId: string) => {
      const tab = await client().focusTab(targetId);
      print(tab, () => tabDone('', tab));
    });
  program
    .command('close')
    .description('close a tab')
    .argument('<targetId>')
    .action(async (targetId: string) => {
      const tab = await client().closeTab(targetId);
      print(tab, () => tabDone('closed ', tab));
    });
  program
    .command('navigate')
    .description('navigate a tab (the last used one by default)')
    .argument('<url>')
    .option('--target <targetId>', 'the tab')
    .action(async (url: string, options: { target?: string }) => {
      const tab = await waiting(`loading ${url}`, client().navigate(url, options.target));
      print(tab, () => tabDone('', tab));
    });
  program
    .command('screenshot')
    .description('save a screenshot of a tab')
    .option('--target <targetId>', 'the tab')
    .option('--full-page', 'the whole page, not just the viewport')
    .option('--element <selector>', 'just this element')
    .option('--type <type>', 'png or jpeg', 'png')
    .option('--out <file>', 'where to write it (default: ./screenshot-<time>.<type>)')
    .option('--labels', 'draw each ref of a fresh snapshot as a numbered box, and list the labels')
    .action(async (options: { target?: string; fullPage?: boolean; element?: string; type: 'png' | 'jpeg'; out?: string; labels?: boolean }) => {
      if (options.labels) {
        if (options.element) throw new BadRequestError('--labels draws on the page or the full page, not one element');
        const shot = await client().vision.labelledScreenshot({ targetId: options.target, fullPage: options.fullPage, type: options.type });
        const path = resolve(options.out ?? `screenshot-${Date.now()}.${shot.type}`);
        writeFileSync(path, Buffer.from(shot.data, 'base64'));
        const { data: _image, ...described } = shot;
        print({ path, ...described }, () => [path, ...(shot.labels.length ? [fenced(shot.fence, shot.labels.map(labelLine))] : [])].join('\n'));
        return;
      }
      const shot = await client().screenshot({ targetId: options.target, fullPage: options.fullPage, element: options.element, type: options.type });
      const path = resolve(options.out ?? `screenshot-${Date.now()}.${shot.type}`);
      writeFileSync(path, Buffer.from(shot.data, 'base64'));
      print({ path, targetId: shot.targetId, mimeType: shot.mimeType }, () => path);
    });
  program
    .command('script')
    .description("write what the profile's tabs did (or one tab's) as a Playwright test")
    .option('--target <targetId>', 'one tab')
    .option('--title <title>', "the test's title")
    .option('--out <file>', 'where to write it (default: ./recorded-<time>.spec.ts)')
    .action(async (options: { target?: string; title?: string; out?: string }) => {
      const written = await client().script({ targetId: options.target, title: options.title });
      const path = resolve(options.out ?? `recorded-${Date.now()}.spec.ts`);
      writeFileSync(path, written.script);
      print({ path, steps: written.steps, notes: written.notes }, () => [path, ...written.notes.map((note) => `note: ${note}`)].join('\n'));
    });
  program
    .command('pdf')
    .description('save a tab as PDF')
    .option('--target <targetId>', 'the tab')
    .option('--out <file>', 'where to write it (default: ./page-<time>.pdf)')
    .action(async (options: { target?: string; out?: string }) => {
      const pdf = await client().pdf(options.target);
      const path = resolve(options.out ?? `page-${Date.now()}.pdf`);
      writeFileSync(path, Buffer.from(pdf.data, 'base64'));
      print({ path, targetId: pdf.targetId }, () => path);
    });
  program
    .command('console')
    .description("a tab's console messages")
    .option('--level <level>', 'this level and worse: debug, log, info, warning, error')
    .option('--target <targetId>', 'the tab')
    .action(async (options: { level?: string; target?: string }) => {
      const result = await client().console({ level: options.level, targetId: options.target });
      print(result, () =>
        result.messages.length
          ? fenced(
              result.fence,
              result.messages.map((m) => `${m.level}: ${m.text}`),
            )
          : '(no messages)',
      );
    });

  addActionCommands(program, client, print);
}

/** Snapshot, actions and hooks (spec §6, §10): refs come from the last `snapshot` of the tab. */
function addActionCommands(program: Command, client: () => BrowserClient, print: Print): void {
  const waiting = <T>(label: string, work: Promise<T>) => withProgress(label, work, { json: program.opts().json === true });
  // What the act did, the target's state, what it set off and where the tab went (api/act-answer.ts): no snapshot needed to know.
  const done = (result: ActionResult) => actAnswer(result);
  const withTarget = (command: Command) => command.option('--target <targetId>', 'the tab (default: the last used)');

  withTarget(program.command('snapshot').description('the page as text, with [ref=…] on what can be acted on'))
    .option('--format <format>', 'ai (default) or aria (the raw accessibility tree)', 'ai')
    .option('--limit <n>', 'at most this many lines (ai) or nodes (aria)', wholeNumber)
    .option('-i, --interactive', 'only what can be acted on, with its landmarks and nearest heading')
    .option('--ref <ref>', 'only the lines of this element (a ref from the previous snapshot)')
    .option('--selector <css>', 'only the lines of the element this CSS selector matches')
    .option('--find <text>', 'only the lines that say this (any case; /regex/flags for a pattern), each under its path')
    .option('--depth <n>', 'only this many levels of the outline', wholeNumber)
    .option('--max-chars <n>', `at most this many characters (default ${AGENT_SNAPSHOT_CHARS} for ai); a note says what was cut`, wholeNumber)
    .option('--diff', "only what changed since the tab's previous snapshot")
    .action(
      async (options: {
        format: 'ai' | 'aria';
        limit?: number;
        target?: string;
        interactive?: boolean;
        ref?: string;
        selector?: string;
        find?: string;
        depth?: number;
        maxChars?: number;
        diff?: boolean;
      }) => {
        const { target, ...rest } = options;
        const snapshot = await client().snapshot({ ...(rest.format === 'ai' ? { maxChars: AGENT_SNAPSHOT_CHARS } : {}), ...rest, targetId: target });
        // The page's words between the answer's fence lines (api/page-content.ts), clawd's notes outside; a person's notes after them, in their own fence.
        print(snapshot, () =>
          snapshot.format === 'ai'
            ? [fencedAfterNotes(snapshot.fence, undefined, snapshot.text, snapshot.leadingNotes), snapshot.notes].filter(Boolean).join('\n')
            : ariaLines(snapshot),
        );
      },
    );
  // Reading a long page to find one control costs thousands of tokens; asking for it costs tens.
  withTarget(
    program
      .command('find')
      .description('the lines of the page that say this, each under its path, with refs (a text, any case, or /regex/flags)')
      .argument('<text>'),
  )
    .option('-i, --interactive', 'only what can be acted on')
    .action(async (query: string, options: { target?: string; interactive?: boolean }) => {
      const snapshot = await client().snapshot({ find: query, interactive: options.interactive, maxChars: AGENT_SNAPSHOT_CHARS, targetId: options.target });
      print(snapshot, () => [fencedAfterNotes(snapshot.fence, undefined, snapshot.text, snapshot.leadingNotes), snapshot.notes].filter(Boolean).join('\n'));
    });
  withTarget(program.command('text').description("the page's readable content as Markdown: headings, links with their URLs, lists, tables"))
    .option('--ref <ref>', 'only this element (a ref from the previous snapshot)')
    .option('--selector <css>', 'only the element this CSS selector matches')
    .option('--max-chars <n>', 'at most this many characters (default 20000); a note says what was cut', wholeNumber)
    .action(async (options: { target?: string; ref?: string; selector?: string; maxChars?: number }) => {
      const { target, ...rest } = options;
      const page = await client().text({ ...rest, targetId: target });
      print(page, () => fencedAfterNotes(page.fence, undefined, page.markdown, page.hidden ? 1 : 0));
    });
  withTarget(program.command('click').description('click an element by ref').argument('<ref>'))
    .option('--double', 'double-click')
    .option('--count <n>', '3 triple-clicks (a paragraph)', wholeNumber)
    .option('--button <button>', 'left, right or middle')
    .action(async (ref: string, options: { double?: boolean; count?: number; button?: 'left' | 'right' | 'middle'; target?: string }) => {
      const result = await client().click(ref, { double: options.double, count: options.count, button: options.button, targetId: options.target });
      print(result, () => done(result));
    });
  withTarget(program.command('type').description('type text into an element').argument('<ref>').argument('<text>'))
    .option('--submit', 'press Enter afterwards')
    .option('--slowly', 'one key at a time, for pages that react to each keystroke')
    .action(async (ref: string, text: string, options: { submit?: boolean; slowly?: boolean; target?: string }) => {
      const result = await client().type(ref, text, { submit: options.submit, slowly: options.slowly, targetId: options.target });
      print(result, () => done(result));
    });
  withTarget(program.command('press').description('press a key (e.g. Enter, ArrowDown, Control+A)').argument('<key>')).action(
    async (key: string, options: { target?: string }) => {
      const result = await client().press(key, { targetId: options.target });
      print(result, () => done(result));
    },
  );
  withTarget(program.command('hover').description('hover an element').argument('<ref>')).action(async (ref: string, options: { target?: string }) => {
    const result = await client().hover(ref, { targetId: options.target });
    print(result, () => done(result));
  });
  withTarget(program.command('drag').description('drag one element onto another').argument('<startRef>').argument('<endRef>'))
    .option('--steps <n>', 'mousemove events on the way (default: about one per 8 pixels)', wholeNumber)
    .action(async (startRef: string, endRef: string, options: { steps?: number; target?: string }) => {
      const result = await client().drag(startRef, endRef, { steps: options.steps, targetId: options.target });
      print(result, () => done(result));
    });
  withTarget(program.command('select').description('choose options of a select').argument('<ref>').argument('<values...>')).action(
    async (ref: string, values: string[], options: { target?: string }) => {
      const result = await client().select(ref, values, { targetId: options.target });
      print(result, () => done(result));
    },
  );
  withTarget(program.command('fill').description('fill many fields at once'))
    .requiredOption('--fields <json>', '[{"ref":"e3","value":"text"},{"ref":"e5","value":true}]')
    .action(async (options: { fields: string; target?: string }) => {
      let fields: Array<{ ref: string; value: string | boolean }>;
      try {
        fields = JSON.parse(options.fields);
      } catch {
        throw new Error('--fields must be JSON: [{"ref":"e3","value":"text"}]');
      }
      const result = await client().fill(fields, { targetId: options.target });
      print(result, () => done(result));
    });
  withTarget(
    program
      .command('resize')
      .description('set the viewport size')
      .argument('<width>', 'CSS pixels', wholeNumber)
      .argument('<height>', 'CSS pixels', wholeNumber),
  ).action(async (width: number, height: number, options: { target?: string }) => {
    const result = await client().resize(width, height, { targetId: options.target });
    print(result, () => `viewport ${width}x${height}`);
  });
  withTarget(program.command('wait').description('wait for text to appear or go, a selector, or a time'))
    .option('--text <text>', 'text to appear')
    .option('--text-gone <text>', 'text to disappear')
    .option('--selector <css>', 'an element to appear')
    .option('--time <ms>', 'just wait', wholeNumber)
    .option('--timeout <ms>', 'give up after (default 30000, at most 120000)', wholeNumber)
    .action(async (options: { text?: string; textGone?: string; selector?: string; time?: number; timeout?: number; target?: string }) => {
      if ([options.text, options.textGone, options.selector, options.time].every((value) => value === undefined))
        throw new Error('wait needs --text, --text-gone, --selector or --time');
      const what = options.text ?? options.textGone ?? options.selector ?? `${options.time} ms`;
      const result = await waiting(
        `waiting for ${what}`,
        client().wait({
          text: options.text,
          textGone: options.textGone,
          selector: options.selector,
          timeMs: options.time,
          timeoutMs: options.timeout,
          targetId: options.target,
        }),
      );
      print(result, () => 'done');
    });
  withTarget(program.command('evaluate').description('run a function in the page (given the element of --ref)'))
    .requiredOption('--fn <source>', 'e.g. "() => document.title" or "(el) => el.value"')
    .option('--ref <ref>', 'pass this element to the function')
    .action(async (options: { fn: string; ref?: string; target?: string }) => {
      const result = await client().evaluate(options.fn, { ref: options.ref, targetId: options.target });
      print(result, () => fenced(result.fence, [JSON.stringify(result.result) ?? 'undefined']));
    });
  withTarget(
    program.command('upload').description('upload files: into an input (--input), through the chooser --ref opens, or the next chooser').argument('<paths...>'),
  )
    .option('--ref <ref>', 'click this, then put the files in the chooser it opens')
    .option('--input <ref>', 'set the files on this file input directly')
    .option('--timeout <ms>', 'how long the chooser may take (default and max 120000)', wholeNumber)
    .action(async (paths: string[], options: { ref?: string; input?: string; timeout?: number; target?: string }) => {
      const result = await client().fileChooser({
        paths: paths.map((p) => resolve(p)),
        ref: options.ref,
        inputRef: options.input,
        timeoutMs: options.timeout,
        targetId: options.target,
      });
      print(result, () => (result.armed ? `armed for the next file chooser: ${paths.join(', ')}` : `uploaded ${(result.uploaded as string[]).join(', ')}`));
    });
  program
    .command('downloads')
    .description("what the profile's tabs downloaded, and where the files are")
    .action(async () => {
      const { downloads } = await client().downloads();
      print(downloads, () =>
        downloads.length
          ? fenced(
              undefined,
              downloads.map((d) => `${d.state}  ${d.path ?? '(pending)'}  ${d.url}`),
            )
          : '(no downloads)',
      );
    });
  withTarget(program.command('dialog').description("answer the tab's next alert / confirm / prompt"))
    .option('--accept', 'accept it')
    .option('--dismiss', 'dismiss it')
    .option('--prompt <text>', 'text for a prompt')
    .option('--timeout <ms>', 'disarm after (default and max 120000)', wholeNumber)
    .action(async (options: { accept?: boolean; dismiss?: boolean; prompt?: string; timeout?: number; target?: string }) => {
      if (options.accept === options.dismiss) throw new Error('say --accept or --dismiss');
      const result = await client().dialog({
        accept: Boolean(options.accept),
        promptText: options.prompt,
        timeoutMs: options.timeout,
        targetId: options.target,
      });
      print(result, () => `armed: the next dialog will be ${options.accept ? 'accepted' : 'dismissed'}`);
    });
}

/** Hands a URL to the desktop's browser; where there is none (a server), the printed link is enough. */
function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    spawn(command, args, { stdio: 'ignore', detached: true })
      .on('error', () => {})
      .unref();
  } catch {
    // No opener: the link is printed.
  }
}
