import { pageLines, unbroken } from './line-safe.js';
import type { Concealment } from './outline-node.js';
import type { Sight } from './page-sight.js';

/**
 * A page's readable content as Markdown, for reading tasks where a
 * snapshot's roles are noise: headings, paragraphs, links with their URLs,
 * lists, tables, quotes and code, images by their alt text. Runs in the
 * page's isolated world (selector-engine.ts).
 *
 * Without a scope it reads the page's main content (`main`, `[role=main]`,
 * else the one `article`, else the body), leaving out navigation, headers,
 * footers and asides around it. What is not rendered (display: none,
 * visibility: hidden, `hidden`, aria-hidden) is left out, and so is what a
 * person cannot see (`sight`, page-sight.ts): `hidden` counts those blocks,
 * and `showHidden` keeps them, each marked `[hidden=why]`. Form controls and
 * scripts are not text. No character of the page's making breaks a line
 * (line-safe.ts): a line ends where the page's structure ends one (a block, a
 * `<br>`, a line of preformatted text).
 */
export function markdownOf(scope: Element | null, sight: Sight, showHidden: boolean): { markdown: string; hidden: number } {
  const SKIPPED = new Set([
    'SCRIPT',
    'STYLE',
    'NOSCRIPT',
    'TEMPLATE',
    'svg',
    'SVG',
    'CANVAS',
    'IFRAME',
    'OBJECT',
    'EMBED',
    'INPUT',
    'SELECT',
    'TEXTAREA',
    'BUTTON',
    'OPTION',
    'DATALIST',
    'HEAD',
  ]);
  const CHROME = new Set(['NAV', 'HEADER', 'FOOTER', 'ASIDE']);
  const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search']);
  const BLOCKS = new Set([
    'ADDRESS',
    'ARTICLE',
    'ASIDE',
    'BLOCKQUOTE',
    'BODY',
    'DD',
    'DETAILS',
    'DIALOG',
    'DIV',
    'DL',
    'DT',
    'FIELDSET',
    'FIGCAPTION',
    'FIGURE',
    'FOOTER',
    'FORM',
    'H1',
    'H2',
    'H3',
    'H4',
    'H5',
    'H6',
    'HEADER',
    'HR',
    'LI',
    'MAIN',
    'NAV',
    'OL',
    'P',
    'PRE',
    'SECTION',
    'SUMMARY',
    'TABLE',
    'UL',
    'CAPTION',
    'TR',
    'TD',
    'TH',
    'THEAD',
    'TBODY',
    'TFOOT',
    'HGROUP',
    'MENU',
    'SEARCH',
  ]);

  const main = (): Element => {
    const marked = document.querySelector('main, [role="main"]');
    if (marked) return marked;
    const articles = document.querySelectorAll('article');
    return articles.length === 1 ? articles[0] : (document.body ?? document.documentElement);
  };
  const root = scope ?? main();
  const aroundMain = scope === null && root !== document.body;
  // Boxes that may cover text, or be painted under it, are found before any text is read.
  sight.survey();
  const hiddenBlocks = new Set<Element>();
  // Where a hidden block is kept (shown when asked), it starts with its mark.
  const marked = new Set<Element>();
  const mark = (from: Element, reason: Concealment): string => {
    if (marked.has(from)) return '';
    marked.add(from);
    return `[hidden=${reason}] `;
  };

  const rendered = (element: Element): boolean => {
    if (element.hasAttribute('hidden') || element.getAttribute('aria-hidden') === 'true') return false;
    const check = (element as Element & { checkVisibility?: (options: object) => boolean }).checkVisibility;
    // display: contents has no box of its own, but its children are shown.
    if (check && !check.call(element, { visibilityProperty: true })) return getComputedStyle(element).display === 'contents';
    return true;
  };
  /** Rendered, and not hidden from a person (shown anyway when asked, its first words marked). */
  const shown = (element: Element): boolean => {
    if (!rendered(element)) return false;
    const scene = sight.sceneOf(element);
    if (!scene.hidden) return !(element.tagName === 'IMG' && element.getAttribute('alt') && sight.tinyBox(element) && hide(element, 'tiny'));
    return !hide(scene.from!, scene.hidden);
  };
  /** A block a person cannot see: counted; true when it is left out. */
  const hide = (from: Element, _reason: Concealment): boolean => {
    if ((from.textContent ?? '').trim() || from.getAttribute('alt')) hiddenBlocks.add(from);
    return !showHidden;
  };
  /** Why a person cannot see an element's own text ('' when they can), settled once per element. */
  const textVerdicts = new Map<Element, Concealment>();
  const textHidden = (element: Element): Concealment => {
    let verdict = textVerdicts.get(element);
    if (verdict === undefined) {
      const scene = sight.sceneOf(element);
      const style = getComputedStyle(element);
      verdict = scene.hidden || sight.textHidden(element, style, scene) || sight.settle([{ owner: element, sameColour: sight.sameColour(style, scene) }])[0];
      textVerdicts.set(element, verdict);
    }
    return verdict;
  };
  /** A text node's words as a person sees them: none when they cannot (shown anyway when asked, after their mark). */
  const seenWords = (node: Node): { mark: string; text: string } => {
    const text = node.textContent ?? '';
    const parent = node.parentElement;
    if (!parent || !text.trim()) return { mark: '', text };
    const reason = textHidden(parent);
    if (!reason) return { mark: '', text };
    const scene = sight.sceneOf(parent);
    const from = scene.hidden ? scene.from! : parent;
    hiddenBlocks.add(from);
    return showHidden ? { mark: mark(from, reason), text } : { mark: '', text: '' };
  };
  const seenText = (node: Node): string => {
    const { mark: marking, text } = seenWords(node);
    return marking + text;
  };
  /** An element's text as a person sees it, whitespace kept (code, preformatted text). */
  const visibleText = (element: Element): string => {
    let text = '';
    const walk = (node: Node): void => {
      for (let child = node.firstChild; child; child = child.nextSibling) {
        if (child.nodeType === 3) text += pageLines(seenText(child));
        else if (child.nodeType === 1) {
          const inner = child as Element;
          if (inner.tagName === 'BR') text += '\n';
          else if (!SKIPPED.has(inner.tagName) && shown(inner)) walk(inner);
        }
      }
    };
    walk(element);
    return text;
  };
  const skipped = (element: Element): boolean => {
    if (SKIPPED.has(element.tagName) || !shown(element)) return true;
    // Around the main content, the page's own navigation and asides are not its content.
    if (!aroundMain && scope === null && element !== root && (CHROME.has(element.tagName) || CHROME_ROLES.has(element.getAttribute('role') ?? ''))) return true;
    return false;
  };
  const isBlock = (node: Node): boolean =>
    node.nodeType === 1 && (BLOCKS.has((node as Element).tagName) || /^(block|flex|grid|table|list-item)/.test(getComputedStyle(node as Element).display));
  const absolute = (url: string): string => {
    try {
      return new URL(url, document.baseURI).href;
    } catch {
      return unbroken(url);
    }
  };
  const escapeText = (text: string): string => text.replace(/([\\`*_[\]])/g, '\\$1');
  const collapse = (text: string): string => unbroken(text).replace(/\s+/g, ' ');

  /** Inline content of a node: text with emphasis, code and links. */
  const inline = (node: Node): string => {
    if (node.nodeType === 3) {
      const { mark: marking, text } = seenWords(node);
      return marking + escapeText(collapse(text));
    }
    if (node.nodeType !== 1) return '';
    const element = node as Element;
    if (skipped(element)) return '';
    const tag = element.tagName;
    if (tag === 'BR') return '\n';
    if (tag === 'IMG') {
      const alt = (element.getAttribute('alt') ?? '').trim();
      return alt ? `![${escapeText(unbroken(alt))}](${absolute(element.getAttribute('src') ?? '')})` : '';
    }
    const inner = () => [...element.childNodes].map(inline).join('');
    if (tag === 'CODE' || tag === 'KBD' || tag === 'SAMP') {
      const text = visibleText(element);
      const fence = text.includes('`') ? '``' : '`';
      return text.trim() ? `${fence}${collapse(text)}${fence}` : '';
    }
    const text = inner();
    if (!text.trim()) return text;
    if (tag === 'A' && element.getAttribute('href') && !element.getAttribute('href')!.startsWith('javascript:'))
      return `[${text.trim()}](${absolute(element.getAttribute('href')!)})`;
    if (tag === 'STRONG' || tag === 'B') return `**${text.trim()}**`;
    if (tag === 'EM' || tag === 'I') return `*${text.trim()}*`;
    if (tag === 'DEL' || tag === 'S') return `~~${text.trim()}~~`;
    return text;
  };
  const tidy = (text: string): string =>
    text
      .split('\n')
      .map((line) => line.replace(/[ \t]+/g, ' ').trim())
      .join('\n')
      .trim();

  const table = (element: HTMLTableElement): string[] => {
    const rows = [...element.rows].filter((row) => shown(row));
    if (!rows.length) return [];
    const cells = rows.map((row) =>
      [...row.cells].map((cell) =>
        tidy([...cell.childNodes].map(inline).join(''))
          .replace(/\n/g, ' ')
          .replace(/\|/g, '\\|'),
      ),
    );
    const width = Math.max(...cells.map((row) => row.length));
    const line = (row: string[]) => `| ${Array.from({ length: width }, (_, i) => row[i] ?? '').join(' | ')} |`;
    const lines = [line(cells[0]), `| ${Array.from({ length: width }, () => '---').join(' | ')} |`, ...cells.slice(1).map(line)].join('\n');
    const caption = element.caption ? tidy(inline(element.caption)) : '';
    return caption ? [caption, lines] : [lines];
  };

  /** The blocks of a node's children: each a paragraph, heading, list, table… separated by blank lines. */
  const blocks = (parent: Node): string[] => {
    const out: string[] = [];
    let run = '';
    const flush = () => {
      const text = tidy(run);
      if (text) out.push(text);
      run = '';
    };
    for (const child of parent.childNodes) {
      if (child.nodeType === 1 && skipped(child as Element)) continue;
      if (!isBlock(child)) {
        run += inline(child);
        continue;
      }
      flush();
      out.push(...block(child as Element));
    }
    flush();
    return out;
  };

  /** A list, its items' own blocks indented under their marker (so nested lists nest). */
  const list = (element: Element): string[] => {
    const ordered = element.tagName === 'OL';
    const items = [...element.children].filter((child) => child.tagName === 'LI' && shown(child));
    if (!items.length) return [];
    const start = Number(element.getAttribute('start') ?? 1) || 1;
    const lines = items.map((item, index) => {
      const marker = ordered ? `${start + index}.` : '-';
      const inner = blocks(item)
        .join('\n')
        .split('\n')
        .filter((line) => line.trim());
      const pad = ' '.repeat(marker.length + 1);
      return [`${marker} ${inner[0] ?? ''}`, ...inner.slice(1).map((line) => `${pad}${line}`)].join('\n');
    });
    return [lines.join('\n')];
  };

  const block = (element: Element): string[] => {
    const tag = element.tagName;
    const heading = /^H([1-6])$/.exec(tag);
    if (heading) {
      const text = tidy(inline(element)).replace(/\n/g, ' ');
      return text ? [`${'#'.repeat(Number(heading[1]))} ${text}`] : [];
    }
    if (tag === 'UL' || tag === 'OL' || tag === 'MENU') return list(element);
    if (tag === 'TABLE') return table(element as HTMLTableElement);
    if (tag === 'HR') return ['---'];
    if (tag === 'PRE') {
      const text = visibleText(element).replace(/\n+$/, '');
      const language = /language-(\w+)/.exec(element.querySelector('code')?.className ?? element.className)?.[1] ?? '';
      return text.trim() ? [`\`\`\`${language}\n${text}\n\`\`\``] : [];
    }
    if (tag === 'BLOCKQUOTE')
      return blocks(element).map((text) =>
        text
          .split('\n')
          .map((line) => `> ${line}`)
          .join('\n'),
      );
    if (tag === 'DT') {
      const text = tidy(inline(element));
      return text ? [`**${text}**`] : [];
    }
    if (tag === 'DD') return blocks(element).map((text) => `: ${text}`);
    return blocks(element);
  };

  // A scope is read as itself (a heading stays a heading, a link a link); the main content by its children.
  const parts = scope === null ? blocks(root) : isBlock(scope) ? block(scope) : [tidy(inline(scope))];
  return {
    markdown: parts
      .join('\n\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
    hidden: hiddenBlocks.size,
  };
}
