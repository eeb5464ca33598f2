import { describe, expect, it } from 'vitest';
import { filterAccepts } from '../../relay/src/bridge/target-filter.js';

describe('filterAccepts (CDP TargetFilter semantics)', () => {
  it('defaults to everything but browser and tab targets', () => {
    expect(filterAccepts(undefined, 'page')).toBe(true);
    expect(filterAccepts(undefined, 'iframe')).toBe(true);
    expect(filterAccepts(undefined, 'tab')).toBe(false);
    expect(filterAccepts(undefined, 'browser')).toBe(false);
  });
  it('lets the first matching entry decide (Puppeteer excludes pages to get tabs)', () => {
    const puppeteer = [{ type: 'page', exclude: true }, {}];
    expect(filterAccepts(puppeteer, 'page')).toBe(false);
    expect(filterAccepts(puppeteer, 'tab')).toBe(true);
    expect(filterAccepts([{ type: 'tab' }, { type: 'tab', exclude: true }], 'tab')).toBe(true);
  });
  it('excludes a target no entry matches', () => {
    expect(filterAccepts([], 'page')).toBe(false);
    expect(filterAccepts([{ type: 'worker' }], 'page')).toBe(false);
  });
});
