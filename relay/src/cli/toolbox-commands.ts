import { readFileSync, writeFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import type { EmulationState } from '../api/toolbox-responses.js';
import type { BrowserClient } from '../client/browser-client.js';
import type { Print } from './print.js';

/** The toolbox's commands (spec §16): emulate, route, init-script, cookies, storage, storage-state. */

const repeat = (value: string, previous: string[] = []) => [...previous, value];
/** `name: value` (or `name=value`) → a header. */
function headers(lines: string[] | undefined): Record<string, string> | undefined {
  if (!lines?.length) return undefined;
  return Object.fromEntries(
    lines.map((line) => {
      const at = line.search(/[:=]/);
      if (at < 1) throw new InvalidArgumentError(`a header is "name: value", not ${JSON.stringify(line)}`);
      return [line.slice(0, at).trim(), line.slice(at + 1).trim()];
    }),
  );
}
function pair(value: string, separator: string, what: string): [number, number] {
  const parts = value.split(separator).map(Number);
  if (parts.length !== 2 || parts.some((part) => !Number.isFinite(part))) throw new InvalidArgumentError(`must be ${what}`);
  return parts as [number, number];
}
const number = (value: string) => {
  if (!Number.isFinite(Number(value))) throw new InvalidArgumentError('must be a number');
  return Number(value);
};
/** `key=value` arguments → items. */
function items(pairs: string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((entry) => {
      const at = entry.indexOf('=');
      if (at < 1) throw new InvalidArgumentError(`an item is key=value, not ${JSON.stringify(entry)}`);
      return [entry.slice(0, at), entry.slice(at + 1)];
    }),
  );
}

interface EmulateOptions {
  target?: string;
  all?: boolean;
  reset?: boolean;
  device?: string;
  viewport?: [number, number];
  scale?: number;
  mobile?: boolean;
  touch?: boolean;
  userAgent?: string;
  geo?: [number, number];
  timezone?: string;
  locale?: string;
  colorScheme?: 'light' | 'dark' | 'no-preference';
  reducedMotion?: 'reduce' | 'no-preference';
  offline?: boolean;
  network?: string;
  cpu?: number;
  header?: string[];
  headerOrigin?: string;
}

export function addToolboxCommands(program: Command, client: () => BrowserClient, print: Print): void {
  const describe = (state: EmulationState) => {
    const effective = Object.entries(state.effective).map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : value}`);
    return [
      `${state.targetId ?? 'profile'}: ${effective.length ? '' : 'nothing emulated'}`.trimEnd(),
      ...effective.map((line) => `  ${line}`),
      ...(state.notes ?? []),
    ].join('\n');
  };
  program
    .command('emulate')
    .description('emulate a device, a place, a time, a language, a colour scheme, network and CPU conditions or headers (no option: show what is on)')
    .option('--target <targetId>', 'the tab (default: the last used)')
    .option('--all', "the profile's default, for every tab now and later")
    .option('--reset', 'stop emulating')
    .option('--device <name>', 'a preset by Playwright\'s name: "iPhone 13", "Pixel 7", …')
    .option('--viewport <WxH>', 'the viewport, e.g. 390x844', (value) => pair(value, 'x', 'WIDTHxHEIGHT'))
    .option('--scale <n>', 'device pixel ratio', number)
    .option('--mobile', 'a mobile viewport')
    .option('--touch', 'touch events')
    .option('--user-agent <ua>')
    .option('--geo <lat,lon>', 'where the page believes it is', (value) => pair(value, ',', 'LATITUDE,LONGITUDE'))
    .option('--timezone <tz>', 'an IANA timezone, e.g. Europe/Paris')
    .option('--locale <locale>', 'e.g. fr-FR')
    .option('--color-scheme <scheme>', 'light, dark or no-preference')
    .option('--reduced-motion <value>', 'reduce or no-preference')
    .option('--offline', 'no network')
    .option('--network <preset>', 'slow-3g, fast-3g, slow-4g or fast-4g')
    .option('--cpu <times>', 'slow the CPU down this many times', number)
    .option('--header <name: value>', 'an extra header on every request (repeatable)', repeat)
    .option('--header-origin <origin>', 'send the headers to this origin only')
    .action(async (options: EmulateOptions) => {
      const toolbox = client().toolbox;
      const scope = options.all ? 'profile' : 'tab';
      const extra = headers(options.header);
      const settings = {
        device: options.device,
        viewport: options.viewport && { width: options.viewport[0], height: options.viewport[1] },
        deviceScaleFactor: options.scale,
        isMobile: options.mobile,
        hasTouch: options.touch,
        userAgent: options.userAgent,
        geolocation: options.geo && { latitude: options.geo[0], longitude: options.geo[1] },
        timezone: options.timezone,
        locale: options.locale,
        colorScheme: options.colorScheme,
        reducedMotion: options.reducedMotion,
        offline: options.offline,
        network: options.network as 'slow-3g' | undefined,
        cpuThrottling: options.cpu,
        headers: extra && { values: extra, ...(options.headerOrigin ? { origin: options.headerOrigin } : {}) },
      };
      const changes = Object.values(settings).some((value) => value !== undefined);
      const state = options.reset
        ? await toolbox.resetEmulation({ targetId: options.target, scope })
        : changes
          ? await toolbox.emulate({ targetId: options.target, scope, ...settings })
          : await toolbox.emulation({ targetId: options.target });
      print(state, () => describe(state));
    });

  const route = program.command('route').description('network routes: fulfil, abort or change requests matching a pattern');
  const addRoute = (action: 'fulfill' | 'abort' | 'continue', description: string) =>
    route
      .command(`${action} <pattern>`)
      .description(`${description}; the pattern is a glob on the whole URL ("**/api/*"), or a regular expression with --regex`)
      .option('--target <targetId>', 'the tab (default: the last used)')
      .option('--all', 'every tab of the profile')
      .option('--regex', 'the pattern is a regular expression')
      .option('--times <n>', 'only the next n requests', number);
  addRoute('fulfill', 'answer matching requests yourself')
    .option('--status <code>', 'the status (200)', number)
    .option('--body <text>', 'the body')
    .option('--body-file <path>', 'the body, from a file in the upload folders')
    .option('--content-type <type>')
    .option('--header <name: value>', 'a response header (repeatable)', repeat)
    .action(
      async (
        pattern: string,
        options: {
          target?: string;
          all?: boolean;
          regex?: boolean;
          times?: number;
          status?: number;
          body?: string;
          bodyFile?: string;
          contentType?: string;
          header?: string[];
        },
      ) => {
        const added = await client().toolbox.addRoute({
          targetId: options.target,
          scope: options.all ? 'profile' : 'tab',
          ...(options.regex ? { regex: pattern } : { url: pattern }),
          action: 'fulfill',
          status: options.status,
          body: options.body,
          bodyFile: options.bodyFile,
          contentType: options.contentType,
          headers: headers(options.header),
          times: options.times,
        });
        print(added, () => `${added.id}: fulfil ${pattern}`);
      },
    );
  addRoute('abort', 'fail matching requests')
    .option('--reason <reason>', 'why they fail: blockedbyclient (default), failed, timedout, connectionrefused, …')
    .action(async (pattern: string, options: { target?: string; all?: boolean; regex?: boolean; times?: number; reason?: string }) => {
      const added = await client().toolbox.addRoute({
        targetId: options.target,
        scope: options.all ? 'profile' : 'tab',
        ...(options.regex ? { regex: pattern } : { url: pattern }),
        action: 'abort',
        errorReason: options.reason as 'failed' | undefined,
        times: options.times,
      });
      print(added, () => `${added.id}: abort ${pattern}`);
    });
  addRoute('continue', 'send matching requests on with headers added')
    .option('--header <name: value>', 'a request header (repeatable)', repeat)
    .action(async (pattern: string, options: { target?: string; all?: boolean; regex?: boolean; times?: number; header?: string[] }) => {
      const added = await client().toolbox.addRoute({
        targetId: options.target,
        scope: options.all ? 'profile' : 'tab',
        ...(options.regex ? { regex: pattern } : { url: pattern }),
        action: 'continue',
        headers: headers(options.header),
        times: options.times,
      });
      print(added, () => `${added.id}: continue ${pattern}`);
    });
  route
    .command('list')
    .description('the routes, with how many requests each answered')
    .action(async () => {
      const listed = await client().toolbox.routes();
      print(
        listed,
        () =>
          listed.routes
            .map((r) => `${r.id}  ${r.action}  ${r.url ?? `/${r.regex}/`}  ${r.scope}  ${r.hits} hits${r.refused ? `, ${r.refused} refused` : ''}`)
            .join('\n') || 'No routes.',
      );
    });
  route
    .command('remove <id>')
    .description('remove a route')
    .action(async (id: string) => {
      const removed = await client().toolbox.removeRoute(id);
      print(removed, () => `removed ${removed.removed.id}`);
    });

  const scripts = program.command('init-script').description("scripts run before the page's own, on every navigation");
  scripts
    .command('add <file>')
    .description('add the script in a file (- reads stdin)')
    .option('--target <targetId>', 'the tab (default: the last used)')
    .option('--all', 'every tab of the profile')
    .action(async (file: string, options: { target?: string; all?: boolean }) => {
      const script = readFileSync(file === '-' ? 0 : file, 'utf8');
      const added = await client().toolbox.addInitScript({ targetId: options.target, scope: options.all ? 'profile' : 'tab', script });
      print(added, () => `${added.id}: runs from the next navigation on`);
    });
  scripts
    .command('list')
    .description('the init scripts')
    .action(async () => {
      const listed = await client().toolbox.initScripts();
      print(listed, () => listed.scripts.map((s) => `${s.id}  ${s.scope}  ${JSON.stringify(s.preview)}`).join('\n') || 'No init scripts.');
    });
  scripts
    .command('remove <id>')
    .description('remove an init script')
    .action(async (id: string) => {
      const removed = await client().toolbox.removeInitScript(id);
      print(removed, () => `removed ${removed.removed.id}`);
    });

  const cookies = program.command('cookies').description("the browser's cookies (values only with the token)");
  cookies
    .command('list', { isDefault: true })
    .description('list cookies')
    .option('--for <url>', 'those this URL would be sent')
    .option('--domain <domain>', 'of this domain and its subdomains')
    .option('--name <name>')
    .action(async (options: { for?: string; domain?: string; name?: string }) => {
      const listed = await client().toolbox.cookies({ url: options.for, domain: options.domain, name: options.name });
      print(
        listed,
        () =>
          listed.cookies.map((c) => `${c.name}=${c.value}  ${c.domain}${c.path}${c.httpOnly ? '  httpOnly' : ''}${c.secure ? '  secure' : ''}`).join('\n') ||
          'No cookies.',
      );
    });
  cookies
    .command('set <name=value...>')
    .description('set cookies for a URL')
    .requiredOption('--for <url>', 'the URL they belong to')
    .option('--http-only')
    .option('--secure')
    .action(async (pairs: string[], options: { for: string; httpOnly?: boolean; secure?: boolean }) => {
      const set = await client().toolbox.setCookies({
        cookies: Object.entries(items(pairs)).map(([name, value]) => ({ name, value, url: options.for, httpOnly: options.httpOnly, secure: options.secure })),
      });
      print(set, () => `set ${set.set}`);
    });
  cookies
    .command('clear')
    .description('clear cookies (by name or domain; every cookie without)')
    .option('--domain <domain>')
    .option('--name <name>')
    .action(async (options: { domain?: string; name?: string }) => {
      const cleared = await client().toolbox.clearCookies(options);
      print(cleared, () => `cleared ${cleared.cleared}`);
    });

  const storage = program.command('storage').description("a tab's localStorage (or sessionStorage with --session)");
  const storageOptions = (command: Command) =>
    command
      .option('--target <targetId>', 'the tab (default: the last used)')
      .option('--session', 'sessionStorage')
      .option('--origin <origin>', "a frame's origin (default: the page's)");
  storageOptions(storage.command('get', { isDefault: true }).description('the items')).action(
    async (options: { target?: string; session?: boolean; origin?: string }) => {
      const shown = await client().toolbox.storage({ targetId: options.target, kind: options.session ? 'session' : 'local', origin: options.origin });
      print(
        shown,
        () =>
          Object.entries(shown.items)
            .map(([key, value]) => `${key}=${value}`)
            .join('\n') || `No items in ${shown.origin}.`,
      );
    },
  );
  storageOptions(storage.command('set <key=value...>').description('set items')).action(
    async (pairs: string[], options: { target?: string; session?: boolean; origin?: string }) => {
      const set = await client().toolbox.setStorage({
        targetId: options.target,
        kind: options.session ? 'session' : 'local',
        origin: options.origin,
        items: items(pairs),
      });
      print(set, () => `set ${set.set} in ${set.origin}`);
    },
  );
  storageOptions(storage.command('clear [key]').description('remove one item, or all')).action(
    async (key: string | undefined, options: { target?: string; session?: boolean; origin?: string }) => {
      const cleared = await client().toolbox.clearStorage({
        targetId: options.target,
        kind: options.session ? 'session' : 'local',
        origin: options.origin,
        key,
      });
      print(cleared, () => `removed ${cleared.cleared} from ${cleared.origin}`);
    },
  );

  const state = program.command('storage-state').description("the browser's storage state, in Playwright's storageState format");
  state
    .command('save <file>')
    .description('write cookies, localStorage and IndexedDB to a file')
    .option('--no-indexed-db', 'leave IndexedDB out')
    .action(async (file: string, options: { indexedDb: boolean }) => {
      const { valuesHidden, ...saved } = await client().toolbox.storageState({ indexedDB: options.indexedDb });
      writeFileSync(file, JSON.stringify(saved, null, 2), { mode: 0o600 });
      const summary = { file, cookies: saved.cookies.length, origins: saved.origins.length, ...(valuesHidden ? { valuesHidden } : {}) };
      print(summary, () => `saved ${file}: ${summary.cookies} cookies, ${summary.origins} origins`);
    });
  state
    .command('load <file>')
    .description("replace the browser's cookies, localStorage and IndexedDB with a saved state")
    .action(async (file: string) => {
      const loaded = await client().toolbox.setStorageState({ state: JSON.parse(readFileSync(file, 'utf8')) });
      print(loaded, () => `loaded ${loaded.cookies} cookies, ${loaded.origins} origins`);
    });
}
