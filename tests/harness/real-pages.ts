import type { Page } from 'playwright-core';
import { startPackageSite, startSwaggerUi, startWidgetLibraries, WIDGET_PAGES } from './package-site.js';
import { startPythonDocsSite } from './python-docs.js';

/**
 * Pages nobody here wrote, each brought to a state worth reading, for what
 * must hold on real-world markup and styles: eleven TodoMVC apps with todos
 * in them (one done), Python's documentation, the widget libraries'
 * host pages (tests/fixtures/third-party/), Swagger UI and reveal.js's demo.
 * Each `load` takes a Playwright page there and waits until it is ready.
 */

export interface RealPage {
  name: string;
  load(page: Page): Promise<void>;
}

export const TODOMVC_APPS = ['vanillajs', 'backbone', 'react', 'angularjs', 'vue', 'knockoutjs', 'mithril', 'emberjs', 'canjs', 'ractive', 'polymer'];
const PYTHON_PAGES = ['library/os.html', 'library/functions.html', 'tutorial/introduction.html', 'glossary.html', 'index.html'];

export async function startRealPages(): Promise<{ pages: RealPage[]; close(): Promise<void> }> {
  const todomvc = await startPackageSite('todomvc');
  const python = await startPythonDocsSite();
  const widgets = await startWidgetLibraries();
  const swagger = await startSwaggerUi();
  const reveal = await startPackageSite('reveal.js');
  const pages: RealPage[] = [
    ...TODOMVC_APPS.map((app) => ({
      name: `TodoMVC ${app}`,
      load: async (page: Page) => {
        await page.goto(todomvc.url(`/examples/${app}/index.html`));
        await page.evaluate(() => localStorage.clear());
        await page.reload();
        const box = page.locator('#new-todo, .new-todo').first();
        await box.waitFor();
        for (const title of ['buy milk', 'walk dog']) {
          await box.click();
          await page.keyboard.type(title);
          await page.keyboard.press('Enter');
          // The app has taken the todo when it empties its field.
          for (let i = 0; i < 50 && (await box.inputValue()) !== ''; i++) await page.waitForTimeout(50);
        }
        await page.locator('#todo-list li .toggle, .todo-list li .toggle').first().click();
        await page.waitForTimeout(100);
      },
    })),
    ...PYTHON_PAGES.map((path) => ({
      name: `Python docs ${path}`,
      load: async (page: Page) => {
        await page.goto(`${python.url}/${path}`);
        await page.waitForLoadState('load');
      },
    })),
    ...WIDGET_PAGES.map((widget) => ({
      name: widget.title,
      load: async (page: Page) => {
        await page.goto(widgets.url(`/${widget.file}`));
        await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true, undefined, { timeout: 30_000 });
        await widget.open?.(page);
      },
    })),
    {
      name: 'Swagger UI',
      load: async (page: Page) => {
        await page.goto(swagger.url('/index.html'));
        await page.waitForSelector('.opblock');
      },
    },
    {
      name: 'reveal.js demo',
      load: async (page: Page) => {
        await page.goto(reveal.url('/demo.html'));
        await page.waitForFunction(() => (window as unknown as { Reveal?: { isReady(): boolean } }).Reveal?.isReady());
      },
    },
  ];
  return {
    pages,
    close: async () => {
      for (const site of [todomvc, python, widgets, swagger, reveal]) await site.close();
    },
  };
}
