/**
 * The page runtime's one entry: what scripts/page-runtime.ts bundles into
 * the source injected into the page (bundle.generated.ts). Each world of
 * clawd's own starts the part it is for (runtime-source.ts): the snapshot
 * engine's world its selector engine, the person's world its watch.
 */
export { watchPerson } from './person-watch.js';
export { selectorEngine } from './selector-engine.js';
