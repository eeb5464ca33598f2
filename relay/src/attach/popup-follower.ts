import type { Protocol } from 'devtools-protocol';

/**
 * Tabs a lent tab opens (`window.open`, `target=_blank`, OAuth windows)
 * follow it, once their first page has committed, as with the extension
 * (its popup-first-page.ts): a client shown a popup before its first page
 * would miss that commit. A blank popup is there already (its opener writes
 * into it) and follows at once; one whose first navigation never ends
 * follows as it is after 5 s. Chrome reports a popup's opener even for
 * `noopener` links, so those follow too; a tab the person opens has none.
 */

const FIRST_PAGE_MS = 5_000;

export class PopupFollower {
  private readonly waiting = new Map<string, { opener: string; timer: NodeJS.Timeout }>();

  constructor(
    /** Lends the popup, if its opener is still lent. */
    private readonly follow: (targetId: string, opener: string) => void,
  ) {}

  /** A lent tab opened this one (Target.targetCreated). */
  created(info: Protocol.Target.TargetInfo, opener: string): void {
    if (info.url) return this.follow(info.targetId, opener);
    const timer = setTimeout(() => this.landed(info.targetId), FIRST_PAGE_MS);
    this.waiting.set(info.targetId, { opener, timer });
  }

  /** Chrome says where a target is now: true when it was a popup waiting for its first page. */
  changed(info: Protocol.Target.TargetInfo): boolean {
    if (!this.waiting.has(info.targetId)) return false;
    if (info.url) this.landed(info.targetId);
    return true;
  }

  gone(targetId: string): void {
    clearTimeout(this.waiting.get(targetId)?.timer);
    this.waiting.delete(targetId);
  }

  clear(): void {
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
  }

  private landed(targetId: string): void {
    const popup = this.waiting.get(targetId);
    if (!popup) return;
    this.gone(targetId);
    this.follow(targetId, popup.opener);
  }
}
