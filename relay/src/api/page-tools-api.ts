import type { PageToolCall, PageToolList } from './page-tools-responses.js';
import type { RequestOf } from './schemas.js';
import type { ActOptions } from './act-options.js';

/**
 * The tools a page offers (WebMCP, spec §21), on one profile:
 * `BrowserApi.pageTools`. The typed client implements it over HTTP, the
 * control service in process; MCP's browser_page_tool calls it.
 */
export interface PageToolsApi {
  list(query?: { targetId?: string }): Promise<PageToolList>;
  /** A tool the page marks consequential may wait for a person's yes (`options`, as for an act). */
  call(request: RequestOf<'pageToolCall'>, options?: ActOptions): Promise<PageToolCall>;
}
