import type { TeachRequest } from '../bridge/outbound.js';
import { schemas } from '../api/schemas.js';
import { BadRequestError } from '../errors.js';
import type { Teaching } from '../service/teaching.js';
import { validated } from '../validation.js';

/**
 * The person teaching from the extension (spec §23): a demonstration or a
 * note on a tab they shared, asked from the extension's own page (never a
 * web page's), and answered by the same services the control API uses, on
 * the `extension` profile. The relay has checked the tab is shared.
 */
const PROFILE = 'extension';

export function extensionTeaching(teaching: Pick<Teaching, 'demonstrations' | 'notes'>): (request: TeachRequest) => Promise<unknown> {
  const { demonstrations, notes } = teaching;
  return async ({ op, targetId, name, description, text }) => {
    switch (op) {
      case 'demonstrate':
        return demonstrations.start(PROFILE, { targetId });
      case 'stop': {
        if (!name) throw new BadRequestError('Give the routine a name to save it');
        const result = await demonstrations.stop(
          PROFILE,
          validated(schemas.demonstrationStop, { targetId, name, ...(description ? { description } : {}) }, 'the routine'),
        );
        return {
          saved: result.saved,
          name: result.routine?.name,
          steps: result.routine?.steps.length ?? 0,
          parameters: result.routine?.parameters.map((param) => param.name) ?? [],
          script: result.script,
          notes: result.notes,
        };
      }
      case 'discard':
        return demonstrations.stop(PROFILE, { targetId, discard: true });
      case 'mark':
        return notes.start(PROFILE, { targetId });
      case 'note':
        return notes.add(PROFILE, validated(schemas.noteAdd, { targetId, text }, 'the note'));
      case 'cancel':
        return notes.cancel(PROFILE, { targetId });
      case 'state':
        return { demonstration: demonstrations.of(PROFILE, targetId) ?? null, marking: notes.marking(PROFILE, targetId) ?? null };
    }
  };
}
