import type { PageToolCall, PageToolList } from './page-tools-responses.js';
import type { RequestOf } from './schemas.js';

/**
 * The tools a page offers (WebMCP, spec §21), on one profile:
 * `BrowserApi.pageTools`. The typed client implements it over HTTP, the
 * control service in process; MCP's browser_page_tool calls it.
 */
export interface PageToolsApi {
  list(query?: { targetId?: string }): Promise<PageToolList>;
  call(request: RequestOf<'pageToolCall'>): Promise<PageToolCall>;
}
