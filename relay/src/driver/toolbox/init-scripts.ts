import type { BrowserContext } from 'playwright-core';
import type { InitScriptInfo } from '../../api/toolbox-responses.js';
import { NotFoundError } from '../../errors.js';
import type { DriverTab } from '../driver-tab.js';

/**
 * A profile's init scripts (`POST /init-scripts`): run before the page's own
 * scripts in every document of one tab (page.addInitScript) or of every tab
 * of the profile (context.addInitScript), from the next navigation on; each
 * can be removed (Playwright gives a handle that takes it back).
 */

export type InitScriptScope = { scope: 'tab'; tab: DriverTab; targetId: string } | { scope: 'profile'; context: BrowserContext };

export class InitScripts {
  private nextId = 1;
  private readonly installed = new Map<string, { info: InitScriptInfo; dispose: () => Promise<void> }>();

  async add(script: string, where: InitScriptScope): Promise<InitScriptInfo> {
    const id = `s${this.nextId++}`;
    const handle = where.scope === 'tab' ? await where.tab.page.addInitScript({ content: script }) : await where.context.addInitScript({ content: script });
    const info: InitScriptInfo = {
      id,
      scope: where.scope,
      ...(where.scope === 'tab' ? { targetId: where.targetId } : {}),
      chars: script.length,
      preview: script.slice(0, 80),
    };
    this.installed.set(id, { info, dispose: () => handle.dispose() });
    if (where.scope === 'tab') where.tab.page.once('close', () => this.installed.delete(id));
    return info;
  }

  list(): InitScriptInfo[] {
    return [...this.installed.values()].map(({ info }) => ({ ...info }));
  }

  async remove(id: string): Promise<InitScriptInfo> {
    const held = this.installed.get(id);
    if (!held) throw new NotFoundError(`No init script ${id} (GET /init-scripts lists them)`);
    this.installed.delete(id);
    await held.dispose().catch(() => {});
    return held.info;
  }

  /** The browser went: its scripts went with it. */
  clear(): void {
    this.installed.clear();
  }
}
