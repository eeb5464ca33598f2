import type { z } from 'zod';
import type { PageToolCall, PageToolList } from '../../api/page-tools-responses.js';
import type { pageToolsSchemas } from '../../api/page-tools-schemas.js';
import { watchDocument } from '../acts/act-effect.js';
import { withAftermath } from '../acts/aftermath.js';
import type { TabHost } from '../tab-host.js';
import type { ConfirmRule, Consequence } from '../../runtime/consequential-acts.js';

/**
 * The tools pages offer agents (WebMCP), on one profile: listed per tab, and
 * called as an act is made: the URL policy held first, what the call set off
 * waited for (a tab it opened, a download), and the answer saying what the
 * tool returned and what changed on the page. The driver hands over how it
 * finds a tab, holds the policy and marks a tab used; each tab's tools are
 * its own (tab-page-tools.ts).
 */

export class ProfilePageTools {
  constructor(private readonly deps: TabHost) {}

  async list(targetId?: string): Promise<PageToolList> {
    const tab = await this.deps.tab(targetId);
    const tools = await tab.pageTools.list();
    const unavailable = tools.length ? undefined : await tab.pageTools.unavailableHere();
    const info = await this.deps.use(tab);
    return { targetId: info.targetId, url: info.url, tools, ...(unavailable ? { unavailable } : {}) };
  }

  /** What a call would set off that config's confirm rules name, judged as an act is (tool-consequence.ts); nothing when none names it. */
  async consequenceOf(request: { targetId?: string; name: string; frameId?: string }, rules: ConfirmRule[]): Promise<Consequence | undefined> {
    const tab = await this.deps.tab(request.targetId);
    return tab.pageTools.consequenceOf(request.name, request.frameId, rules);
  }

  async call(request: z.output<typeof pageToolsSchemas.pageToolCall>, signal?: AbortSignal): Promise<PageToolCall> {
    const tab = await this.deps.tab(request.targetId);
    await this.deps.guard(tab);
    const targetId = await tab.targetId();
    const urlBefore = tab.page.url();
    const watch = await watchDocument(tab);
    const { result, events: opened } = await withAftermath(
      tab,
      () => tab.pageTools.call(request.name, request.input, { frameId: request.frameId, timeoutMs: request.timeoutMs, signal }),
      (popup) => this.deps.describePopup(popup),
      signal,
    );
    const events = [...tab.takeEvents(), ...opened];
    const happened = events.length ? { events } : {};
    if (tab.page.isClosed()) return { targetId, ...result, changed: true, ...happened };
    const info = await this.deps.use(tab);
    const navigated = info.url !== urlBefore;
    const { changed } = await watch.finish({ navigated, events });
    return {
      targetId,
      ...result,
      url: info.url,
      title: info.title,
      ...(changed !== undefined ? { changed } : {}),
      ...(navigated ? { navigated } : {}),
      ...happened,
    };
  }
}
