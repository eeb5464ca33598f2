import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping.js';
import type { SharedDownload, TeachOp } from '../../../protocol/wire.js';
import { type CdpError, errorResponse, event, response } from './cdp-frames.js';
import type { Client, Session } from './client-sessions.js';

/** What the bridge asks its owner (the relay server) to send or do. */
export type Outbound =
  | { to: 'client'; clientId: number; data: string | Uint8Array }
  | { to: 'extension'; data: string }
  | { to: 'closeClient'; clientId: number; reason: string }
  /** A shared tab's download started or changed. Not CDP: the server keeps the log. */
  | { to: 'download'; targetId: string; download: SharedDownload }
  /** A finished download, copied for an allowAndName client to <dir>/<name>; the server calls downloadCopied. */
  | { to: 'copyDownload'; requestId: number; from: string; dir: string; name: string }
  /** DOM.setFileInputFiles: the server reads these files (upload-folder rule) and calls filesRead. */
  | { to: 'readFiles'; requestId: number; paths: string[] }
  /** The user answered a consent request in the extension. Not CDP: the server waits for it. */
  | { to: 'consent'; id: number; allowed: boolean; domains: string[] }
  /** The person's teaching request on a shared tab (its page's target). Not CDP: the server answers the extension. */
  | { to: 'teach'; request: TeachRequest };

/** A `teach` frame of the extension, its tab as the shared tab's target. */
export interface TeachRequest {
  id: number;
  targetId: string;
  op: TeachOp;
  name?: string;
  description?: string;
  text?: string;
}

export type CommandName = keyof ProtocolMapping.Commands;
/** What Chrome answers `M` with ({} for commands that return nothing). */
export type CommandResult<M extends CommandName> = ProtocolMapping.Commands[M]['returnType'] extends void
  ? Record<string, never>
  : ProtocolMapping.Commands[M]['returnType'];
export type EventName = keyof ProtocolMapping.Events;
export type EventParams<E extends EventName> = ProtocolMapping.Events[E] extends [infer P] ? P : Record<string, never>;

/**
 * Collects the messages one entry point of the bridge produces; the entry
 * point drains them into its return value. Answers and events the bridge
 * makes up itself are typed by devtools-protocol, so they are the shapes
 * Chrome would send.
 */
export class OutboundQueue {
  private items: Outbound[] = [];

  toClient(client: Client, data: string | Uint8Array): void {
    if (!client.gone) this.items.push({ to: 'client', clientId: client.id, data });
  }

  reply<M extends CommandName>(session: Session, messageId: number, _method: M, result: CommandResult<M>): void {
    this.toClient(session.client, response(messageId, session.id, result as object));
  }

  /** A result shaped elsewhere: Chrome's own, filtered (cookies), or fixed when the command was sent. */
  answer(session: Session, messageId: number, result: object): void {
    this.toClient(session.client, response(messageId, session.id, result));
  }

  fail(session: Session, messageId: number, error: CdpError): void {
    this.toClient(session.client, errorResponse(messageId, session.id, error));
  }

  emit<E extends EventName>(session: Session, method: E, params: EventParams<E>): void {
    this.toClient(session.client, event(method, session.id, params as object));
  }

  toExtension(data: string): void {
    this.items.push({ to: 'extension', data });
  }

  /** The relay could not use a frame the extension sent; the extension logs it. */
  protocolError(message: string): void {
    this.toExtension(JSON.stringify({ type: 'protocolError', message }));
  }

  closeClient(client: Client, reason: string): void {
    this.items.push({ to: 'closeClient', clientId: client.id, reason });
  }

  copyDownload(requestId: number, from: string, dir: string, name: string): void {
    this.items.push({ to: 'copyDownload', requestId, from, dir, name });
  }

  readFiles(requestId: number, paths: string[]): void {
    this.items.push({ to: 'readFiles', requestId, paths });
  }

  consent(id: number, allowed: boolean, domains: string[]): void {
    this.items.push({ to: 'consent', id, allowed, domains });
  }

  teach(request: TeachRequest): void {
    this.items.push({ to: 'teach', request });
  }

  download(targetId: string, download: SharedDownload): void {
    this.items.push({ to: 'download', targetId, download });
  }

  drain(): Outbound[] {
    const items = this.items;
    this.items = [];
    return items;
  }
}
