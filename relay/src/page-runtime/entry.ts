import { pageSight } from './page-sight.js';
import { hiddenElementsOf } from './walk.js';

/**
 * The page runtime's one entry: what scripts/page-runtime.ts bundles into
 * the source injected into the page (bundle.generated.ts). Each world of
 * clawd's own starts the part it is for (runtime-source.ts): the snapshot
 * engine's world its selector engine, the person's world its watch, the
 * world that reads the accessibility tree what a person cannot see.
 */
export { watchPerson } from './person-watch.js';
export { selectorEngine } from './selector-engine.js';

/** What a person cannot see, as the outline judges it (snapshot/aria-tree.ts leaves it out of the tree). */
export const hiddenElements = (): Element[] => hiddenElementsOf(pageSight());
