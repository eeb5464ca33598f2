/**
 * Every answer an API object gives, passed through `redact` on its way out:
 * what its methods return or resolve to, what they reject with (an error's
 * message), and the same for the API objects it holds (the toolbox's,
 * vision's). The in-process BrowserApi that `/mcp` calls is wrapped so, with
 * the redaction of the profile's typed secrets (driver/browser-secrets.ts),
 * as the HTTP routes' answers are in the route binder: one rule for every
 * answer, whatever method made it.
 */
export function redactedAnswers<T extends object>(api: T, redact: <V>(value: V) => V): T {
  const shown = (error: unknown) => {
    if (error instanceof Error) error.message = redact(error.message);
    throw error;
  };
  // An API a method gives (withProfile's) redacts its own answers: it passes as it is.
  const answered = <V>(value: V): V => (isApi(value) ? value : redact(value));
  return new Proxy(api, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value === 'function')
        return (...args: unknown[]) => {
          let out: unknown;
          try {
            out = (value as (...given: unknown[]) => unknown).apply(target, args);
          } catch (error) {
            return shown(error);
          }
          return out instanceof Promise ? out.then(answered, shown) : answered(out);
        };
      return value && typeof value === 'object' ? redactedAnswers(value, redact) : value;
    },
  });
}

function isApi(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.values(value).some((field) => typeof field === 'function');
}
