import { z } from 'zod';
import { schemas } from '../api/schemas.js';
import type { NetworkBody } from '../api/responses.js';
import { defineTool, Profile, saveExport, TargetId, text, type Tool, withProfile } from './tools.js';
import { fenced } from '../api/page-content.js';
import { recordCall } from './record-call.js';

/**
 * Tools most agents do without, each in a capability group that is off by
 * default (capabilities.ts): files (uploads, downloads, PDF), recording
 * (the network log, HAR, traces, console messages), dialogs.
 */

/** A body for an agent's context: text as text (its first 20,000 characters), anything else by size and type only. */
const BODY_TEXT_CHARS = 20_000;
function bodyText(body: NetworkBody): string {
  const head = `#${body.id} ${body.part} body: ${body.size} bytes${body.mimeType ? ` of ${body.mimeType}` : ''}${body.truncated ? ' (cut at 1 MiB)' : ''}`;
  const textual = !body.mimeType || /^text\/|json|xml|javascript|x-www-form-urlencoded|graphql/.test(body.mimeType);
  const decoded = Buffer.from(body.base64, 'base64').toString('utf8');
  if (!textual || decoded.includes('\uFFFD')) return `${head}; binary, not shown (GET /network/body gives it)`;
  const more = decoded.length > BODY_TEXT_CHARS ? `\n… ${decoded.length - BODY_TEXT_CHARS} more characters` : '';
  return `${head}\n${fenced(body.fence, [decoded.slice(0, BODY_TEXT_CHARS)])}${more}`;
}

export const PAGE_TOOLS: Tool[] = [
  defineTool({
    name: 'browser_pdf',
    group: 'files',
    description: 'Save the page as PDF; returns the file path.',
    input: z.object({ profile: Profile, targetId: TargetId }),
    readOnly: false,
    run: async (api, params, session) => {
      const pdf = await withProfile(api, params).pdf(params.targetId);
      const path = saveExport(session.exportDir, `${pdf.targetId.slice(0, 8)}-${Date.now()}.pdf`, Buffer.from(pdf.data, 'base64'));
      return text(`Saved ${path}`);
    },
  }),
  defineTool({
    name: 'browser_console',
    group: 'recording',
    description: "A tab's recent console messages (level: that and worse).",
    input: z.object({ profile: Profile, targetId: TargetId, level: z.enum(['debug', 'log', 'info', 'warning', 'error']).optional() }),
    readOnly: true,
    run: async (api, params) => {
      const { messages, fence } = await withProfile(api, params).console({ targetId: params.targetId, level: params.level });
      const last = messages.slice(-50).map((m) => `[${m.level}] ${m.text}`);
      if (!last.length) return text('No console messages.');
      return text([...(messages.length > 50 ? [`(last 50 of ${messages.length})`] : []), fenced(fence, last)].join('\n'));
    },
  }),
  defineTool({
    name: 'browser_downloads',
    group: 'files',
    description: 'Downloads and where the files are.',
    input: z.object({ profile: Profile }),
    readOnly: true,
    run: async (api, params) => {
      const { downloads, fence } = await withProfile(api, params).downloads();
      return text(
        downloads.length
          ? fenced(
              fence,
              downloads.map((d) => `${d.state} ${d.url}${d.path ? ` → ${d.path}` : ''}${d.error ? ` (${d.error})` : ''}`),
            )
          : 'No downloads.',
      );
    },
  }),
  defineTool({
    name: 'browser_record',
    group: 'recording',
    description: 'Network log (start; list by url, status 4xx, type fetch; body/request-body of #id), har, trace, video (a film), script (a Playwright test).',
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      action: z.enum([
        'network-start',
        'network-stop',
        'network',
        'body',
        'request-body',
        'har',
        'trace-start',
        'trace-stop',
        'video-start',
        'video-stop',
        'script',
      ]),
      id: z.number().int().positive().optional(),
      url: z.string().optional(),
      status: z.string().optional(),
      type: z.string().optional(),
      limit: z.number().int().positive().optional(),
    }),
    readOnly: false,
    run: async (api, { profile, ...request }, session) => {
      if (request.action === 'script') {
        // What was done, as a test file beside the other exports.
        const written = await withProfile(api, { profile }).script({ targetId: request.targetId });
        const path = saveExport(session.exportDir, `recorded-${Date.now()}.spec.ts`, written.script);
        return text([`Written: ${path} (${written.steps} steps; run it with npx playwright test)`, ...written.notes.map((note) => `- ${note}`)].join('\n'));
      }
      const answer = await recordCall(withProfile(api, { profile }), { ...request, action: request.action });
      if (answer.filming)
        return text(`Filming ${answer.filming.targetId ? `tab ${answer.filming.targetId}` : 'every tab this profile uses'} since ${answer.filming.since}.`);
      if (answer.film) return text(`Written: ${answer.film.path} (${(answer.film.durationMs / 1000).toFixed(1)} s, ${answer.film.chapters.length} chapters)`);
      if (answer.path) return text(`Written: ${answer.path}`);
      if (answer.body) return text(bodyText(answer.body));
      if (answer.tracing !== undefined) return text(answer.tracing ? 'Tracing the browser context.' : 'Trace stopped.');
      const network = answer.network!;
      if (!network.entries) return text(network.recording ? `Recording ${answer.targetId}'s requests.` : `Not recording ${answer.targetId}.`);
      const lines = network.entries.map(
        (e) => `#${e.id} ${e.method} ${e.status ?? e.failure ?? '…'} ${e.resourceType} ${e.url}${e.durationMs !== undefined ? ` ${e.durationMs}ms` : ''}`,
      );
      return text(lines.length ? fenced(answer.fence, lines) : network.recording ? 'No requests recorded yet.' : 'Not recording: network-start first.');
    },
  }),
  defineTool({
    name: 'browser_upload',
    group: 'files',
    description: 'Upload files: set inputRef directly, or click ref to open the chooser. paths must be in the upload folders; files are inline base64.',
    input: z.object({ profile: Profile, ...schemas.fileChooser.shape }),
    readOnly: false,
    run: async (api, { profile, ...options }) => {
      const result = await withProfile(api, { profile }).fileChooser(options);
      if (result.armed)
        return text(
          `Armed: the next file chooser on this tab gets ${(result.files ?? []).join(', ')} (for ${Math.round((result.timeoutMs ?? 0) / 1000)} s). Click what opens it.`,
        );
      return text(`Uploaded ${(result.uploaded ?? []).join(', ') || 'no files'}.`);
    },
  }),
  defineTool({
    name: 'browser_dialog',
    group: 'dialogs',
    description: "Arm the answer to the tab's next alert/confirm/prompt (otherwise dialogs are dismissed).",
    input: z.object({ profile: Profile, ...schemas.dialog.shape }),
    readOnly: false,
    run: async (api, { profile, ...options }) => {
      await withProfile(api, { profile }).dialog(options);
      return text(`Armed: the next dialog will be ${options.accept ? 'accepted' : 'dismissed'}.`);
    },
  }),
];
