import type { CDPSession } from 'playwright-core';
import type { Protocol } from 'devtools-protocol';
import { BadRequestError, NotFoundError, TimeoutError, UnavailableError } from '../../errors.js';
import type { PageTool, PageToolOutcome } from '../../api/page-tools-responses.js';
import type { TabPort } from '../tab-port.js';
import { OutOfProcessFrames } from './frame-sessions.js';
import { checkToolInput } from './tool-input.js';
import type { ConfirmRule, Consequence } from '../../runtime/consequential-acts.js';
import { toolConsequence } from './tool-consequence.js';
import { failureKind } from '../browser-failure.js';

/**
 * The tools a tab's page offers agents (WebMCP, spec §21): registered by its
 * scripts (`document.modelContext.registerTool`) or declared by its forms
 * (`<form toolname>`), in any frame of the page. Heard through CDP's WebMCP
 * domain on the tab's own session, and on each out-of-process frame's
 * (frame-sessions.ts): `enable` replays the tools there are,
 * `toolsAdded` and `toolsRemoved` follow them. Chromium does not say when a
 * frame's document goes (a navigation): its tools are dropped here when the
 * frame navigates, since the old tool would only answer "Tool not found".
 *
 * A call is checked against the tool's input schema first (a 400 naming the
 * field), then `invokeTool`, then its `toolResponded` awaited within a
 * timeout; a caller that goes away (or the timeout) cancels the invocation.
 */

/** A browser without WebMCP (a person's Chrome without the feature): said plainly. */
export const NO_WEBMCP =
  "This browser offers no page tools: its WebMCP (document.modelContext) is off. clawd-browser's own browsers turn it on; in your own Chrome it is behind chrome://flags/#enable-webmcp-testing";
/** A page of a browser with WebMCP, that cannot register tools. */
const NOT_SECURE = 'This page can offer no tools: WebMCP is for secure contexts only (https, or http on this machine)';

interface Invocation {
  tool: string;
  resolve: (answer: Protocol.WebMCP.ToolRespondedEvent) => void;
}

export class TabPageTools {
  /** By frame id, then by name: a page may give two frames tools of one name. */
  private readonly byFrame = new Map<string, Map<string, PageTool>>();
  /** The session a frame's tools were heard on (an out-of-process frame's own), where they are called. */
  private readonly sessionOf = new Map<string, CDPSession>();
  /** The form that declares a tool (its backend node), by the tool as it is registered now. */
  private readonly forms = new WeakMap<PageTool, number>();
  private readonly invocations = new Map<string, Invocation>();
  private enabling: Promise<CDPSession> | undefined;
  private unavailable: string | undefined;

  constructor(private readonly tab: TabPort) {}

  /** Why the page can offer no tools at all (no WebMCP in this browser, or not a secure context); undefined when it can. */
  async unavailableHere(): Promise<string | undefined> {
    if (this.unavailable) return this.unavailable;
    const here = await this.tab.page.evaluate(() => ({ api: 'modelContext' in document, secure: isSecureContext })).catch(() => undefined);
    if (!here || here.api) return undefined;
    return here.secure ? NO_WEBMCP : NOT_SECURE;
  }

  /** Every tool the page offers now, the main frame's first. */
  async list(): Promise<PageTool[]> {
    const session = await this.enabled();
    const { frameTree } = (await session.send('Page.getFrameTree')) as Protocol.Page.GetFrameTreeResponse;
    const mainId = frameTree.frame.id;
    const all = [...this.byFrame.entries()].flatMap(([frameId, tools]) => [...tools.values()].map((tool) => ({ ...tool, mainFrame: frameId === mainId })));
    return all.sort((a, b) => Number(b.mainFrame) - Number(a.mainFrame)).map(({ mainFrame: _main, ...tool }) => tool);
  }

  /** How many tools the page offers (the snapshot's first line); none where the browser has no WebMCP. */
  async count(): Promise<number> {
    if (this.unavailable) return 0;
    await this.enabled().catch(() => undefined);
    return [...this.byFrame.values()].reduce((sum, tools) => sum + tools.size, 0);
  }

  /** Starts hearing the page's tools (once per tab). */
  enabled(): Promise<CDPSession> {
    if (this.unavailable) throw new UnavailableError(this.unavailable);
    this.enabling ??= this.enable().catch((error: unknown) => {
      this.enabling = undefined;
      if (failureKind(error) === 'method-unavailable') this.unavailable = NO_WEBMCP;
      throw this.unavailable ? new UnavailableError(NO_WEBMCP) : error;
    });
    return this.enabling;
  }

  /**
   * Calls `name` (in `frameId`'s frame, or the one frame that offers it) with
   * `input`, and waits for its answer. Throws a 404 for a tool the page does
   * not offer, a 400 for input its schema refuses, a 504 for one that never
   * answers; a tool that failed is answered as such (status `Error`).
   */
  async call(name: string, input: Record<string, unknown>, options: { frameId?: string; timeoutMs: number; signal?: AbortSignal }): Promise<PageToolOutcome> {
    const main = await this.enabled();
    const tool = this.find(name, options.frameId);
    await checkToolInput(tool, input);
    const session = this.sessionOf.get(tool.frameId) ?? main;
    const { invocationId } = (await session
      .send('WebMCP.invokeTool', { frameId: tool.frameId, toolName: name, input: input as never })
      .catch((error: Error) => {
        if (/Tool not found/i.test(error.message)) throw this.gone(name);
        throw error;
      })) as Protocol.WebMCP.InvokeToolResponse;
    const answered = new Promise<Protocol.WebMCP.ToolRespondedEvent>((resolve) => this.invocations.set(invocationId, { tool: name, resolve }));
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_resolve, reject) => {
      const cancel = (why: Error) => {
        this.invocations.delete(invocationId);
        void session.send('WebMCP.cancelInvocation', { invocationId }).catch(() => {});
        reject(why);
      };
      timer = setTimeout(
        () =>
          cancel(
            new TimeoutError(`Page tool ${name} did not answer within ${options.timeoutMs} ms: its call was cancelled`, {
              tool: name,
              limitMs: options.timeoutMs,
            }),
          ),
        options.timeoutMs,
      );
      onAbort = () => cancel(options.signal?.reason instanceof Error ? options.signal.reason : new Error('cancelled'));
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const answer = await Promise.race([answered, stopped]);
      // A tool that threw says so in its exception (errorText is empty then): its message, without the page's stack.
      const errorText = answer.errorText || answer.exception?.description?.split('\n')[0];
      return {
        tool: name,
        frameId: tool.frameId,
        status: answer.status,
        ...(answer.output !== undefined ? { output: answer.output } : {}),
        ...(errorText ? { errorText } : {}),
      };
    } finally {
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
      this.invocations.delete(invocationId);
    }
  }

  /** What calling `name` would set off that a confirm rule names (tool-consequence.ts); a 404 for a tool the page does not offer. */
  async consequenceOf(name: string, frameId: string | undefined, rules: ConfirmRule[]): Promise<Consequence | undefined> {
    const main = await this.enabled();
    const tool = this.find(name, frameId);
    // The form is a node of the session that heard its tool (an out-of-process frame's own).
    return toolConsequence(this.sessionOf.get(tool.frameId) ?? main, tool, this.forms.get(tool), rules);
  }

  /** The tool a call means: by name, in the frame named or the one frame that offers it. */
  private find(name: string, frameId: string | undefined): PageTool {
    const offering = [...this.byFrame.values()].map((tools) => tools.get(name)).filter((tool) => tool !== undefined);
    const chosen = frameId ? offering.find((tool) => tool.frameId === frameId) : offering[0];
    if (!chosen) throw this.gone(name);
    if (!frameId && offering.length > 1)
      throw new BadRequestError(
        `Page tool ${name} is offered by ${offering.length} frames (${offering.map((tool) => tool.frameId).join(', ')}): name one with frameId`,
      );
    return chosen;
  }

  /** The tools there are are not named: their names are the page's words, which an error carries outside any fence. */
  private gone(name: string): NotFoundError {
    const offered = [...this.byFrame.values()].reduce((sum, tools) => sum + tools.size, 0);
    return new NotFoundError(`The page offers no tool ${JSON.stringify(name)}; it offers ${offered || 'none'}`, { next: 'list-page-tools' });
  }

  private async enable(): Promise<CDPSession> {
    const session = await this.tab.cdp();
    this.hear(session, true);
    await session.send('WebMCP.enable');
    // Out-of-process frames (cross-site iframes) offer theirs on sessions of their own, whenever they come.
    await new OutOfProcessFrames(this.tab.page, {
      opened: async (frameSession) => {
        this.hear(frameSession, false);
        await frameSession.send('Page.enable');
        await frameSession.send('WebMCP.enable');
      },
      closed: (frameSession) => this.forgetSession(frameSession),
    }).watch();
    return session;
  }

  /** Follows the tools of the frames a session holds: the tab's own, or an out-of-process frame's. */
  private hear(session: CDPSession, main: boolean): void {
    session.on('WebMCP.toolsAdded', ({ tools }: Protocol.WebMCP.ToolsAddedEvent) => {
      for (const tool of tools) {
        const described = describeTool(tool);
        if (tool.backendNodeId !== undefined) this.forms.set(described, tool.backendNodeId);
        this.framesTools(tool.frameId).set(tool.name, described);
        this.sessionOf.set(tool.frameId, session);
      }
    });
    session.on('WebMCP.toolsRemoved', ({ tools }: Protocol.WebMCP.ToolsRemovedEvent) => {
      for (const tool of tools) this.byFrame.get(tool.frameId)?.delete(tool.name);
    });
    session.on('WebMCP.toolResponded', (answer: Protocol.WebMCP.ToolRespondedEvent) => this.invocations.get(answer.invocationId)?.resolve(answer));
    // A frame's new document starts with none of the old one's tools (Chromium sends no toolsRemoved for them).
    session.on('Page.frameNavigated', ({ frame }: Protocol.Page.FrameNavigatedEvent) => {
      if (!frame.parentId && main) this.byFrame.clear();
      else this.forgetFrame(frame.id);
    });
    session.on('Page.frameDetached', ({ frameId }: Protocol.Page.FrameDetachedEvent) => this.forgetFrame(frameId));
  }

  private forgetFrame(frameId: string): void {
    this.byFrame.delete(frameId);
    this.sessionOf.delete(frameId);
  }

  /** An out-of-process frame's session ended (the frame went, or moved back into its parent's process): its tools with it. */
  private forgetSession(session: CDPSession): void {
    for (const [frameId, owner] of this.sessionOf) if (owner === session) this.forgetFrame(frameId);
  }

  private framesTools(frameId: string): Map<string, PageTool> {
    let tools = this.byFrame.get(frameId);
    if (!tools) this.byFrame.set(frameId, (tools = new Map()));
    return tools;
  }
}

/** A tool as an agent reads it: its name, description, schema, what its annotations say, and whether a form declares it. */
function describeTool(tool: Protocol.WebMCP.Tool): PageTool {
  const annotations = Object.fromEntries(Object.entries(tool.annotations ?? {}).filter(([, value]) => value === true)) as PageTool['annotations'];
  return {
    name: tool.name,
    description: tool.description,
    frameId: tool.frameId,
    ...(tool.inputSchema ? { inputSchema: tool.inputSchema } : {}),
    ...(annotations && Object.keys(annotations).length ? { annotations } : {}),
    ...(tool.backendNodeId !== undefined ? { declaredBy: 'form' as const } : {}),
  };
}
