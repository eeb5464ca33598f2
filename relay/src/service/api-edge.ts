import { asAgent } from '../runtime/agent-context.js';

/**
 * The edge of the in-process BrowserApi that `/mcp` calls, as the HTTP
 * routes have theirs in the route binder and the door: every call runs as
 * the caller's agent (runtime/agent-context.ts: its requests without
 * targetId mean its own tabs), and every answer leaves through `redact` (the
 * profile's typed secrets replaced: driver/secrets/browser-secrets.ts), what its
 * methods return or resolve to, what they reject with (an error's message),
 * and the same for the API objects it holds (the toolbox's, vision's).
 */
export function atTheEdge<T extends object>(api: T, edge: { redact: <V>(value: V) => V; agent?: string }): T {
  const { redact, agent } = edge;
  const shown = (error: unknown) => {
    if (error instanceof Error) error.message = redact(error.message);
    throw error;
  };
  // An API a method gives (withProfile's) has an edge of its own: it passes as it is.
  const answered = <V>(value: V): V => (isApi(value) ? value : redact(value));
  return new Proxy(api, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value === 'function')
        return (...args: unknown[]) => {
          let out: unknown;
          try {
            out = asAgent(agent, () => (value as (...given: unknown[]) => unknown).apply(target, args));
          } catch (error) {
            return shown(error);
          }
          return out instanceof Promise ? out.then(answered, shown) : answered(out);
        };
      return value && typeof value === 'object' ? atTheEdge(value, edge) : value;
    },
  });
}

function isApi(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.values(value).some((field) => typeof field === 'function');
}
