import type { z } from 'zod';
import { schemas } from '../api/schemas.js';
import type { PageToolsApi } from '../api/page-tools-api.js';
import { type ControlService, validated } from './control-service.js';

/**
 * The tools pages offer agents (WebMCP, spec §21), for HTTP and MCP alike.
 * A call is an action: it goes through the control service's operation()
 * (cancelled with its caller, which cancels the tool's invocation, bounded,
 * logged), so a recorded session keeps a screenshot of it and the URL policy
 * holds wherever it leads. Listing is a view.
 */
export class PageToolsService {
  constructor(private readonly control: ControlService) {}

  list(profile: string | undefined, query: { targetId?: string }, signal?: AbortSignal) {
    return this.control.operation(profile, { kind: 'page-tools', targetId: query.targetId }, signal, (driver) => driver.pageTools.list(query.targetId));
  }

  call(profile: string | undefined, request: z.output<typeof schemas.pageToolCall>, signal?: AbortSignal) {
    return this.control.operation(profile, { kind: 'page-tool', targetId: request.targetId }, signal, (driver, bounded) => driver.pageTools.call(request, bounded));
  }

  /** The page tools as an agent's tools see them, in process: arguments checked as the HTTP routes check them. */
  api(profile: string | undefined, signal?: AbortSignal): PageToolsApi {
    return {
      list: (query = {}) => this.list(profile, query, signal),
      call: (request) => this.call(profile, validated(schemas.pageToolCall, request, 'arguments'), signal),
    };
  }
}
