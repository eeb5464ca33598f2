import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Page } from 'playwright-core';
import { createRequire } from 'node:module';
import { extname, join, resolve, sep } from 'node:path';
import { startTestSite } from './test-site.js';

/**
 * Serves the files of installed npm packages as a site: pages and widgets
 * nobody here wrote (Swagger UI's React app, reveal.js's demo deck, Select2,
 * Quill, TinyMCE), for tests that must hold on real-world markup and scripts,
 * not only on fixtures made for them.
 *
 * `files` replaces or adds a few paths (a package's own configuration file, as
 * its README says to edit it); `handle` answers anything else first (an API the
 * page calls) and returns true when it did.
 */
export interface PackageSiteOptions {
  files?: Record<string, { type: string; body: string }>;
  handle?: (request: IncomingMessage, response: ServerResponse, url: URL) => boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

/** Where an installed package lives (found as Node would, without its `exports` map, which may hide package.json). */
export function packageDir(name: string): string {
  const found = (createRequire(import.meta.url).resolve.paths(name) ?? []).map((dir) => join(dir, name)).find((dir) => existsSync(join(dir, 'package.json')));
  if (!found) throw new Error(`${name} is not installed (npm install)`);
  return found;
}

/**
 * `packages` maps a URL prefix to a package: `'reveal.js'` serves one package
 * at the root; `{ '/jquery/': 'jquery', '/select2/': 'select2' }` serves several.
 */
export async function startPackageSite(
  packages: string | Record<string, string>,
  options: PackageSiteOptions = {},
): Promise<{ url(path: string): string; close(): Promise<void> }> {
  const mounts = Object.entries(typeof packages === 'string' ? { '/': packages } : packages).map(([prefix, name]) => ({ prefix, root: packageDir(name) }));
  const site = await startTestSite((request, response, url) => {
    if (options.handle?.(request, response, url)) return;
    const replaced = options.files?.[url.pathname];
    if (replaced) return void response.writeHead(200, { 'content-type': replaced.type }).end(replaced.body);
    let pathname: string;
    try {
      pathname = url.pathname === '/' ? '/index.html' : decodeURIComponent(url.pathname);
    } catch {
      return void response.writeHead(400).end('bad path');
    }
    const mount = mounts.find(({ prefix }) => pathname.startsWith(prefix));
    const file = mount && resolve(mount.root, `.${pathname.slice(mount.prefix.length - 1)}`);
    if (!mount || !file || !file.startsWith(mount.root + sep)) return void response.writeHead(404).end();
    readFile(file).then(
      (body) => response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  return { url: (path) => `${site.url}${path.startsWith('/') ? path : `/${path}`}`, close: site.close };
}

/** A page of ours from tests/fixtures/third-party/, for `files`: a host for widgets nobody here wrote. */
export function hostPage(name: string): { type: string; body: string } {
  return { type: TYPES['.html'], body: readFileSync(new URL(`../fixtures/third-party/${name}`, import.meta.url), 'utf8') };
}

/**
 * The pets API the Swagger UI page calls (`GET /api/pets/{id}` answers a pet
 * named after its id; anything else under /api is a 404): each call is noted
 * in `calls` ("GET /api/pets/42"), for `startSwaggerUi`.
 */
export function petsApi(calls: string[]): NonNullable<PackageSiteOptions['handle']> {
  return (request, response, url) => {
    if (!url.pathname.startsWith('/api/')) return false;
    calls.push(`${request.method} ${url.pathname}`);
    const id = /^\/api\/pets\/(\w+)$/.exec(url.pathname)?.[1];
    response
      .writeHead(id ? 200 : 404, { 'content-type': 'application/json' })
      .end(JSON.stringify(id ? { id: Number(id), name: `Rex the ${id}th` } : { error: 'no such route' }));
    return true;
  };
}

/**
 * Swagger UI as its users deploy it: swagger-ui-dist's own page, with its
 * configuration file pointed at our API description
 * (tests/fixtures/third-party/petstore.json, served under /api).
 */
export function startSwaggerUi(handleApi: PackageSiteOptions['handle'] = () => false): ReturnType<typeof startPackageSite> {
  const spec = readFileSync(new URL('../fixtures/third-party/petstore.json', import.meta.url), 'utf8');
  const initializer = `window.onload = () => {
    window.ui = SwaggerUIBundle({ url: '/petstore.json', dom_id: '#swagger-ui', deepLinking: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], plugins: [SwaggerUIBundle.plugins.DownloadUrl], layout: 'StandaloneLayout' });
  };`;
  return startPackageSite('swagger-ui-dist', {
    files: { '/petstore.json': { type: 'application/json', body: spec }, '/swagger-initializer.js': { type: 'text/javascript', body: initializer } },
    handle: handleApi,
  });
}

/**
 * One host page of ours per widget library (tests/fixtures/third-party/),
 * set up as the library's docs say, which sets `window.ready` when it is;
 * `open` brings it to the state worth looking at (a dropdown open) the way
 * a person would.
 */
export interface WidgetPage {
  file: string;
  title: string;
  open?: (page: Page) => Promise<void>;
}

export const WIDGET_PAGES: WidgetPage[] = [
  {
    file: 'widgets.html',
    title: 'Select2 (open), Quill and TinyMCE',
    open: async (page) => {
      await page.click('.select2-selection');
      await page.waitForSelector('.select2-results__option');
    },
  },
  { file: 'shoelace.html', title: 'Shoelace web components' },
  { file: 'ag-grid.html', title: 'AG Grid Community' },
  { file: 'sortable.html', title: 'SortableJS list' },
  { file: 'flatpickr.html', title: 'flatpickr inline calendar' },
  { file: 'jquery-ui.html', title: 'jQuery UI widgets' },
  {
    file: 'bootstrap.html',
    title: 'Bootstrap 5 (dropdown open)',
    open: async (page) => {
      await page.click('text=Account');
      await page.waitForSelector('.dropdown-menu.show');
    },
  },
  {
    file: 'tom-select.html',
    title: 'Tom Select (open)',
    open: async (page) => {
      await page.click('.ts-control');
      await page.waitForSelector('.ts-dropdown .option');
    },
  },
  { file: 'tabulator.html', title: 'Tabulator' },
];

/** The widget libraries of WIDGET_PAGES, from node_modules, with their host pages. */
export function startWidgetLibraries(): ReturnType<typeof startPackageSite> {
  return startPackageSite(
    {
      '/jquery/': 'jquery',
      '/jquery-ui/': 'jquery-ui',
      '/select2/': 'select2',
      '/quill/': 'quill',
      '/tinymce/': 'tinymce',
      '/shoelace/': '@shoelace-style/shoelace',
      '/ag-grid/': 'ag-grid-community',
      '/sortablejs/': 'sortablejs',
      '/flatpickr/': 'flatpickr',
      '/bootstrap/': 'bootstrap',
      '/tom-select/': 'tom-select',
      '/tabulator/': 'tabulator-tables',
    },
    { files: Object.fromEntries([...WIDGET_PAGES.map((page) => page.file), 'mail.html'].map((file) => [`/${file}`, hostPage(file)])) },
  );
}

/**
 * Two code editors nobody here wrote, as their READMEs load them: Monaco
 * (its AMD build; on Chromium it edits through an EditContext, a focused
 * element that is neither an input nor contenteditable) and CodeMirror 6
 * (a contenteditable, its modules through an import map).
 */
export function startEditorSite(): ReturnType<typeof startPackageSite> {
  return startPackageSite(
    {
      '/monaco/': 'monaco-editor',
      '/cm-state/': '@codemirror/state',
      '/cm-view/': '@codemirror/view',
      '/find-cluster-break/': '@marijn/find-cluster-break',
      '/crelt/': 'crelt',
      '/style-mod/': 'style-mod',
      '/w3c-keyname/': 'w3c-keyname',
    },
    { files: { '/monaco.html': hostPage('monaco.html'), '/codemirror.html': hostPage('codemirror.html') } },
  );
}
