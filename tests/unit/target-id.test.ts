import { describe, expect, it } from 'vitest';
import { resolveTargetId } from '../../relay/src/driver/profile-driver.js';
import { AmbiguousError, NotFoundError } from '../../relay/src/errors.js';

const ids = ['A1B2C3', 'A1FFFF', 'B77777', 'B7'];

describe('targetId prefixes (spec §6)', () => {
  it('takes a unique prefix, case-insensitively', () => {
    expect(resolveTargetId(ids, 'a1b', 'clawd')).toBe(0);
    expect(resolveTargetId(ids, 'A1F', 'clawd')).toBe(1);
  });
  it('prefers an exact id even when it prefixes another', () => {
    expect(resolveTargetId(ids, 'b7', 'clawd')).toBe(3);
  });
  it('is a 409 when the prefix matches several tabs, naming them', () => {
    expect(() => resolveTargetId(ids, 'A1', 'clawd')).toThrow(AmbiguousError);
    expect(() => resolveTargetId(ids, 'A1', 'clawd')).toThrow(/matches 2 tabs: A1B2C3, A1FFFF/);
  });
  it('is a 404 when nothing matches', () => {
    expect(() => resolveTargetId(ids, 'C', 'work')).toThrow(NotFoundError);
    expect(() => resolveTargetId(ids, 'C', 'work')).toThrow(/No tab with targetId "C" in profile work/);
  });
});
