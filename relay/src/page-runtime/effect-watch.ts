import type { EffectReading, ElementState } from './ops.js';

/**
 * The effect of an action (driver/acts/act-effect.ts), watched from the
 * engine's world: a page that replaces MutationObserver or HTMLInputElement
 * (a polyfill) changes its own world, not this one. One watch per id:
 * Playwright may run a query twice.
 */

/** The state an agent acts to change, read as the browser holds it (tag names, not constructors a page may replace). */
function readState(el: Element): ElementState {
  const tag = el.tagName;
  const aria = (name: string) => el.getAttribute(name);
  const input = el as HTMLInputElement;
  const toggle = tag === 'INPUT' && (input.type === 'checkbox' || input.type === 'radio');
  const value = (el as { value?: unknown }).value;
  return {
    checked: toggle ? input.checked : aria('aria-checked'),
    value:
      tag === 'SELECT' ? [...(el as HTMLSelectElement).selectedOptions].map((option) => option.label).join(', ') : typeof value === 'string' ? value : null,
    expanded: aria('aria-expanded'),
    selected: aria('aria-selected'),
    pressed: aria('aria-pressed'),
    open: tag === 'DETAILS' || tag === 'DIALOG' ? (el as HTMLDetailsElement).open : null,
  };
}

interface Watch {
  records: number;
  element: Element | null;
  before: ElementState | null;
  focus: Element | null;
  observer: MutationObserver;
}

export class EffectWatches {
  private readonly watches = new Map<string, Watch>();
  private finished: { id: string; reading: EffectReading } | undefined;

  start(id: string, element: Element | null): boolean {
    if (this.watches.has(id)) return true;
    const doc = element ? element.ownerDocument : document;
    const watch: Watch = {
      records: 0,
      element,
      before: element ? readState(element) : null,
      focus: doc.activeElement,
      observer: new MutationObserver((records) => (watch.records += records.length)),
    };
    // A web component's reaction happens inside its shadow root, which an observer of the
    // document does not see: every open one is watched too.
    const roots: Node[] = [doc];
    for (let i = 0; i < roots.length; i++) {
      const walker = doc.createTreeWalker(roots[i], NodeFilter.SHOW_ELEMENT);
      for (let node = walker.nextNode() as Element | null; node; node = walker.nextNode() as Element | null) if (node.shadowRoot) roots.push(node.shadowRoot);
    }
    for (const root of roots) watch.observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    this.watches.set(id, watch);
    return true;
  }

  /** Mutations so far, the watch going on; null when it is gone. */
  count(id: string): number | null {
    const watch = this.watches.get(id);
    if (!watch) return null;
    watch.records += watch.observer.takeRecords().length;
    return watch.records;
  }

  finish(id: string): EffectReading | null {
    const watch = this.watches.get(id);
    if (!watch) return this.finished?.id === id ? this.finished.reading : null;
    this.watches.delete(id);
    const mutations = watch.records + watch.observer.takeRecords().length;
    watch.observer.disconnect();
    const doc = watch.element ? watch.element.ownerDocument : document;
    const reading = { mutations, before: watch.before, after: watch.element ? readState(watch.element) : null, focusMoved: doc.activeElement !== watch.focus };
    this.finished = { id, reading };
    return reading;
  }
}
