import type { z } from 'zod';
import { schemas } from '../api/schemas.js';
import type { PageToolsApi } from '../api/page-tools-api.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { validated } from '../validation.js';
import type { ConfirmService } from './confirm-service.js';
import type { Operations } from './operation-runner.js';
import type { ActOptions } from '../api/browser-api.js';
import type { PageToolCall } from '../api/page-tools-responses.js';
import { withFence } from '../api/page-content.js';

/**
 * The tools pages offer agents (WebMCP, spec §21), for HTTP and MCP alike.
 * A call is an action: it goes through an operation (operation-runner.ts)
 * (cancelled with its caller, which cancels the tool's invocation, bounded,
 * logged), so a recorded session keeps a screenshot of it and the URL policy
 * holds wherever it leads. Listing is a view.
 */
export class PageToolsService {
  constructor(
    private readonly operations: Operations,
    private readonly drivers: Pick<ProfileManager, 'driver' | 'registry'>,
    private readonly confirmations: Pick<ConfirmService, 'pageTool'>,
  ) {}

  // A tool's description and what it returns are the page's words: each answer carries its fence (api/page-content.ts).
  list(profile: string | undefined, query: { targetId?: string }, signal?: AbortSignal) {
    return this.operations.operation(profile, { kind: 'page-tools', targetId: query.targetId }, signal, async (driver) =>
      withFence(await driver.pageTools.list(query.targetId)),
    );
  }

  /**
   * One call, judged by every rule an act is (driver/page-tools/tool-consequence.ts): a tool the page marks
   * consequential, and a form's tool that sends its form to a domain a rule names or with a button a rule
   * names, wait for a person's yes (confirm-service.ts) as the act would: `wait` here, else the answer
   * says so with the hand-off's handle.
   */
  async call(
    profile: string | undefined,
    request: z.output<typeof schemas.pageToolCall>,
    signal?: AbortSignal,
    options: ActOptions & { wait?: boolean } = {},
  ): Promise<PageToolCall> {
    const run = (bounded?: AbortSignal) =>
      this.operations.operation(profile, { kind: 'page-tool', targetId: request.targetId }, bounded, async (driver, inner) =>
        withFence(await driver.pageTools.call(request, inner)),
      );
    const rules = this.drivers.registry.config().confirm.rules;
    if (!rules.length) return run(signal);
    const consequence = await this.drivers.driver(profile).pageTools.consequenceOf(request, rules);
    if (!consequence) return run(signal);
    return this.confirmations.pageTool<PageToolCall>(profile, request.targetId, consequence, run, signal, options, (confirmation, targetId) => ({
      tool: request.name,
      frameId: request.frameId ?? '',
      status: 'Canceled',
      targetId,
      confirmation,
    }));
  }

  /** The page tools as an agent's tools see them, in process: arguments checked as the HTTP routes check them. */
  api(profile: string | undefined, signal?: AbortSignal): PageToolsApi {
    return {
      list: (query = {}) => this.list(profile, query, signal),
      call: (request, options) => this.call(profile, validated(schemas.pageToolCall, request, 'arguments'), signal, { ...options, wait: true }),
    };
  }
}
