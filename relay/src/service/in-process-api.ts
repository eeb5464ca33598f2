import type { ActOptions, BrowserApi, SnapshotRequest } from '../api/browser-api.js';
import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import type { AiSnapshotResponse } from '../api/responses.js';
import { ActionSchema, type ActionRequest, type RequestOf, schemas } from '../api/schemas.js';
import { ForbiddenError } from '../errors.js';
import { validated } from '../validation.js';
import { atTheEdge } from './api-edge.js';
import type { ControlServices } from './control-assembly.js';
import { inProcessRecordings } from './in-process-recordings.js';

/**
 * The services as an agent's tools see them (BrowserApi), for one profile:
 * in process, no HTTP, what `/mcp` on the server calls. Arguments are
 * checked against the API's schemas here, as the HTTP routes check them.
 */

export interface InProcessOptions {
  /** A task session's key: its own profile only. */
  locked?: boolean;
  /** The caller's agent (runtime/agent-context.ts). */
  agent?: string;
}

export function inProcessApi(services: ControlServices, profile?: string, signal?: AbortSignal, options: InProcessOptions = {}): BrowserApi {
  const { control: service } = services;
  // Each call as the caller's agent, each answer without the secrets typed into the profile's browser (api-edge.ts).
  return atTheEdge<BrowserApi>(
    {
      // A task session's key holds its own profile only: another is refused, and the list names no other.
      withProfile: (other) => {
        if (options.locked && other !== profile)
          throw new ForbiddenError(`A task session's key reaches its own session only (${profile}), not ${JSON.stringify(other)}`);
        return inProcessApi(services, other, signal, options);
      },
      status: () => service.status(profile),
      profiles: async () => {
        const all = await service.profiles();
        return options.locked ? { profiles: [], defaultProfile: profile! } : all;
      },
      tabs: () => service.tabs(profile),
      tabList: () => service.tabList(profile),
      openTab: (url = 'about:blank') => service.openTab(profile, validated(schemas.open, { url }, 'arguments').url, signal),
      focusTab: (targetId) => service.focusTab(profile, targetId, signal),
      closeTab: (targetId) => service.closeTab(profile, targetId, signal),
      navigate: (url, targetId) => {
        const checked = validated(schemas.navigate, { url, targetId }, 'arguments');
        return service.navigate(profile, checked.url, checked.targetId, signal);
      },
      screenshot: (options = {}) => service.screenshot(profile, validated(schemas.screenshot, options, 'arguments'), signal),
      pdf: (targetId) => service.pdf(profile, targetId, signal),
      console: (options = {}) => service.console(profile, options),
      text: (options = {}) => {
        const { profile: _ignored, ...checked } = validated(schemas.textQuery, options, 'arguments');
        return service.text(profile, checked, signal);
      },
      snapshot: async (options: SnapshotRequest = {}) => {
        const { profile: _ignored, ...checked } = validated(schemas.snapshotQuery, options, 'arguments');
        return (await service.snapshot(profile, checked, signal)) as AiSnapshotResponse;
      },
      act: (action: ActionRequest, options?: ActOptions) =>
        service.act(profile, validated(ActionSchema, action, 'arguments'), signal, { ...options, wait: true }),
      fileChooser: (options: RequestOf<'fileChooser'>) => service.fileChooser(profile, validated(schemas.fileChooser, options, 'arguments'), signal),
      dialog: (options: RequestOf<'dialog'>) => service.armDialog(profile, validated(schemas.dialog, options, 'arguments'), signal),
      downloads: async () => service.downloads(profile),
      recordings: inProcessRecordings(services, profile),
      script: async (query = {}) => {
        const { profile: _ignored, ...checked } = validated(schemas.scriptQuery, query, 'arguments');
        return service.script(profile, checked);
      },
      toolbox: services.toolbox.api(profile, signal),
      vision: services.vision.api(profile, signal),
      pageTools: services.pageTools.api(profile, signal),
      // A session's key's routines are its own (its key's MCP is the locked API of its profile).
      teach: services.teaching.api(
        profile,
        signal,
        options.locked && profile?.startsWith(SESSION_PROFILE_PREFIX) ? profile.slice(SESSION_PROFILE_PREFIX.length) : undefined,
      ),
      handoff: (request, wait = {}) =>
        services.handoffs.openAndWait(profile, validated(schemas.handoff, request, 'arguments'), services.handoffLink(), wait.signal ?? signal, wait.onWaiting),
      browse: (request, how = {}) => services.browse(request, { profile, locked: options.locked ?? false }, { ...how, signal: how.signal ?? signal }),
      // A scoped caller (a session's key) reaches its own profile's hand-offs only: find() says so first.
      handoffView: async (id) => {
        const handoff = await services.handoffs.state(profile, id, 0);
        const jpeg = handoff.state === 'waiting' ? await services.manager.driver(handoff.profile).thumbnail(handoff.targetId) : undefined;
        return { handoff, ...(jpeg ? { frame: { mimeType: 'image/jpeg' as const, data: jpeg.toString('base64') } } : {}) };
      },
      // Through the agent's own connection (an MCP App's view): the agent's input and answer, never a person's yes.
      handoffInput: async (id, input) => {
        services.handoffs.find(profile, id);
        return services.liveInput.handoff(id, validated(schemas.handoffInput, input, 'arguments'), signal, 'agent');
      },
      answerHandoff: async (id, answer) => {
        services.handoffs.find(profile, id);
        return services.handoffs.answer(id, validated(schemas.handoffAnswer, answer, 'arguments'), 'agent');
      },
    },
    { redact: (answer) => services.manager.secretsOf(profile)?.redactDeep(answer) ?? answer, agent: options.agent },
  );
}
