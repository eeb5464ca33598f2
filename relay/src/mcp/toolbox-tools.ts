import { readFileSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { z } from 'zod';
import { EmulationSettingsSchema, toolboxSchemas } from '../api/toolbox-schemas.js';
import type { StorageState } from '../api/toolbox-responses.js';
import { BadRequestError } from '../errors.js';
import { fenced } from '../api/page-content.js';
import { defineTool, Profile, saveExport, TargetId, text, type Tool, withProfile } from './tools.js';

/**
 * The toolbox's MCP tools (spec §16), each in a capability group that is off
 * by default (capabilities.ts): emulation, network (routes and init
 * scripts), storage. Each is one tool with an `action`, as browser_record is,
 * so a group costs one definition, not one per route.
 */

const Scope = z.enum(['tab', 'profile']).optional().describe('profile: every tab, now and later');
const route = toolboxSchemas.route.shape;

/*
 * Inputs stay in the subset every MCP client maps (no null type, objects that
 * name their properties): a field is cleared by naming it in `clear`, and
 * headers and items are lists of {name, value}.
 */
const NameValues = z.array(z.object({ name: z.string(), value: z.string() }));
const asRecord = (pairs: Array<{ name: string; value: string }> | undefined) =>
  pairs ? Object.fromEntries(pairs.map(({ name, value }) => [name, value])) : undefined;
const settings = EmulationSettingsSchema.shape;
type SettingName = keyof typeof settings;
const SETTING_NAMES = Object.keys(settings) as [SettingName, ...SettingName[]];
/** Each setting as the tool takes it: optional, never null. */
const emulationFields = Object.fromEntries(
  SETTING_NAMES.filter((name) => name !== 'headers').map((name) => [
    name,
    (settings[name] as z.ZodOptional<z.ZodNullable<z.ZodType>>).unwrap().unwrap().optional(),
  ]),
) as { [K in Exclude<SettingName, 'headers'>]: z.ZodOptional<z.ZodType<NonNullable<z.output<(typeof settings)[K]>>>> };

/** A storage state file lives in the MCP export folder: written there by `state`, read from there by `load-state`. */
function stateFile(exportDir: string, path: string): string {
  const full = resolve(exportDir, path);
  if (!full.startsWith(resolve(exportDir) + sep)) throw new BadRequestError(`path must be a file in ${exportDir} (where action "state" writes them)`);
  return full;
}

export const TOOLBOX_TOOLS: Tool[] = [
  defineTool({
    name: 'browser_emulate',
    description:
      'Emulate a device, place, time, language, scheme, network/CPU conditions, headers; clear names settings to stop, reset stops all. No field: shows what is on.',
    group: 'emulation',
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      scope: Scope,
      reset: z.boolean().optional(),
      clear: z.array(z.enum(SETTING_NAMES)).optional().describe('settings to stop'),
      ...emulationFields,
      headers: NameValues.optional(),
      headersOrigin: z.string().optional().describe('send headers to this origin only'),
    }),
    readOnly: false,
    run: async (api, { profile, targetId, scope, reset, clear, headers, headersOrigin, ...fields }) => {
      const toolbox = withProfile(api, { profile }).toolbox;
      const change = {
        ...fields,
        ...(headers ? { headers: { values: asRecord(headers)!, ...(headersOrigin ? { origin: headersOrigin } : {}) } } : {}),
        ...Object.fromEntries((clear ?? []).map((name) => [name, null])),
      };
      const changes = Object.values(change).some((value) => value !== undefined);
      const state = reset
        ? await toolbox.resetEmulation({ targetId, scope })
        : changes
          ? await toolbox.emulate({ targetId, scope, ...change })
          : await toolbox.emulation({ targetId });
      const effective = Object.keys(state.effective).length ? JSON.stringify(state.effective) : 'nothing';
      return text([`Emulating on ${state.targetId ?? 'every new tab'}: ${effective}`, ...(state.notes ?? [])].join('\n'));
    },
  }),
  defineTool({
    name: 'browser_route',
    description: 'Network routes: fulfill, abort or continue (with headers) requests matching url (glob) or regex; list; remove by id.',
    group: 'network',
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      action: z.enum(['list', 'remove', 'fulfill', 'abort', 'continue']),
      id: z.string().optional().describe('for remove'),
      scope: Scope,
      url: route.url,
      regex: route.regex,
      status: route.status,
      headers: NameValues.optional().describe('fulfill: response headers; continue: request headers'),
      body: route.body,
      contentType: route.contentType,
      errorReason: route.errorReason,
      times: route.times,
    }),
    readOnly: false,
    run: async (api, { profile, action, id, headers, ...request }) => {
      const toolbox = withProfile(api, { profile }).toolbox;
      if (action === 'remove') {
        if (!id) throw new BadRequestError('browser_route remove needs id');
        return text(`Removed route ${(await toolbox.removeRoute(id)).removed.id}.`);
      }
      if (action === 'list') {
        const { routes } = await toolbox.routes();
        const lines = routes.map(
          (r) =>
            `${r.id} ${r.action} ${r.url ?? `/${r.regex}/`} (${r.scope}${r.targetId ? ` ${r.targetId}` : ''}): ${r.hits} hits${r.refused ? `, ${r.refused} refused by the URL policy` : ''}`,
        );
        return text(lines.length ? lines.join('\n') : 'No routes.');
      }
      const added = await toolbox.addRoute({ ...request, headers: asRecord(headers), action });
      return text(`Route ${added.id}: ${action} ${added.url ?? `/${added.regex}/`} (${added.scope}).`);
    },
  }),
  defineTool({
    name: 'browser_init_script',
    description: "A script run before the page's own on every navigation (add); list; remove by id.",
    group: 'network',
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      action: z.enum(['add', 'list', 'remove']),
      script: z.string().optional(),
      id: z.string().optional(),
      scope: Scope,
    }),
    readOnly: false,
    run: async (api, { profile, action, script, id, targetId, scope }) => {
      const toolbox = withProfile(api, { profile }).toolbox;
      if (action === 'remove') {
        if (!id) throw new BadRequestError('browser_init_script remove needs id');
        return text(`Removed init script ${(await toolbox.removeInitScript(id)).removed.id}.`);
      }
      if (action === 'list') {
        const { scripts } = await toolbox.initScripts();
        return text(scripts.length ? scripts.map((s) => `${s.id} (${s.scope}) ${JSON.stringify(s.preview)}`).join('\n') : 'No init scripts.');
      }
      if (!script) throw new BadRequestError('browser_init_script add needs script');
      const added = await toolbox.addInitScript({ targetId, scope, script });
      return text(`Init script ${added.id} runs from the next navigation on (${added.scope}).`);
    },
  }),
  defineTool({
    name: 'browser_storage',
    description: 'Cookies (values hidden), localStorage/sessionStorage of the page (kind), storage state to/from a file in the export folder.',
    group: 'storage',
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      action: z.enum(['cookies', 'set-cookies', 'clear-cookies', 'get', 'set', 'clear', 'state', 'load-state']),
      url: z.string().optional().describe("cookies: this URL's"),
      domain: z.string().optional(),
      name: z.string().optional(),
      cookies: toolboxSchemas.setCookies.shape.cookies.optional(),
      kind: z.enum(['local', 'session']).optional(),
      origin: z.string().optional().describe("a frame's origin"),
      items: NameValues.optional().describe('set: {name: key, value}'),
      key: z.string().optional(),
      path: z.string().optional().describe('state, load-state: the file'),
    }),
    readOnly: false,
    run: async (api, params, session) => {
      const toolbox = withProfile(api, params).toolbox;
      const { targetId, kind, origin } = params;
      switch (params.action) {
        case 'cookies': {
          const { cookies } = await toolbox.cookies({ url: params.url, domain: params.domain, name: params.name });
          const lines = cookies.map(
            (c) =>
              `${c.name} ${c.domain}${c.path}${c.httpOnly ? ' httpOnly' : ''}${c.secure ? ' secure' : ''} ${c.expires === -1 ? 'session' : `expires ${new Date(c.expires * 1000).toISOString()}`}`,
          );
          return text(lines.length ? `${fenced(undefined, lines)}\n(values are shown only to the token's holder)` : 'No cookies.');
        }
        case 'set-cookies':
          if (!params.cookies) throw new BadRequestError('browser_storage set-cookies needs cookies');
          return text(`Set ${(await toolbox.setCookies({ cookies: params.cookies })).set} cookies.`);
        case 'clear-cookies':
          return text(`Cleared ${(await toolbox.clearCookies({ name: params.name, domain: params.domain })).cleared} cookies.`);
        case 'get': {
          const shown = await toolbox.storage({ targetId, kind, origin });
          // What a page stored is its words: fenced (a fence chosen here, against them).
          return text(`${shown.kind}Storage of ${shown.origin}:\n${fenced(undefined, [JSON.stringify(shown.items).slice(0, 20_000)])}`);
        }
        case 'set':
          if (!params.items) throw new BadRequestError('browser_storage set needs items');
          return text(`Set ${(await toolbox.setStorage({ targetId, kind, origin, items: asRecord(params.items)! })).set} items.`);
        case 'clear':
          return text(`Removed ${(await toolbox.clearStorage({ targetId, kind, origin, key: params.key })).cleared} items.`);
        case 'state': {
          const { valuesHidden: _hidden, ...state } = await toolbox.storageState({ indexedDB: true });
          const path = saveExport(
            session.exportDir,
            params.path ? stateFile(session.exportDir, params.path) : `storage-state-${Date.now()}.json`,
            JSON.stringify(state, null, 2),
          );
          return text(`Saved ${path}: ${state.cookies.length} cookies (values left out), ${state.origins.length} origins.`);
        }
        case 'load-state': {
          if (!params.path) throw new BadRequestError('browser_storage load-state needs path');
          const file = stateFile(session.exportDir, params.path);
          let state: StorageState;
          try {
            state = JSON.parse(readFileSync(file, 'utf8')) as StorageState;
          } catch (error) {
            throw new BadRequestError(`Cannot read a storage state from ${file}: ${(error as Error).message}`);
          }
          const loaded = await toolbox.setStorageState({ state });
          return text(`Loaded ${loaded.cookies} cookies and ${loaded.origins} origins.`);
        }
      }
    },
  }),
];
