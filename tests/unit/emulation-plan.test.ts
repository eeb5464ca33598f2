import { describe, expect, it } from 'vitest';
import { toolboxSchemas } from '../../relay/src/api/toolbox-schemas.js';
import { emulationCommands, mergeEmulation, originHeaders, presetOf, shownEmulation } from '../../relay/src/driver/toolbox/emulation-plan.js';

const pixel = {
  viewport: { width: 412, height: 839 },
  screen: { width: 412, height: 915 },
  deviceScaleFactor: 2.625,
  isMobile: true,
  hasTouch: true,
  userAgent: 'Pixel UA',
};
const byMethod = (commands: ReturnType<typeof emulationCommands>) => Object.fromEntries(commands.map(([method, params]) => [method, params]));

describe('emulation as CDP commands', () => {
  it('nothing set states every category as "no override"', () => {
    expect(byMethod(emulationCommands({}, undefined, 'Own UA'))).toEqual({
      'Emulation.clearDeviceMetricsOverride': {},
      'Emulation.setTouchEmulationEnabled': { enabled: false },
      'Emulation.setUserAgentOverride': { userAgent: '' },
      'Emulation.setLocaleOverride': {},
      'Emulation.setTimezoneOverride': { timezoneId: '' },
      'Emulation.clearGeolocationOverride': {},
      'Emulation.setEmulatedMedia': {
        features: [
          { name: 'prefers-color-scheme', value: '' },
          { name: 'prefers-reduced-motion', value: '' },
        ],
      },
      'Emulation.setCPUThrottlingRate': { rate: 1 },
      'Network.emulateNetworkConditions': { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 },
      'Network.setExtraHTTPHeaders': { headers: {} },
    });
  });

  it('a device gives metrics, touch and agent; fields set beside it win', () => {
    const commands = byMethod(emulationCommands({ device: 'Pixel 7', viewport: { width: 500, height: 600 }, locale: 'fr-FR' }, pixel, 'Own UA'));
    expect(commands['Emulation.setDeviceMetricsOverride']).toEqual({ width: 500, height: 600, deviceScaleFactor: 2.625, mobile: true });
    expect(commands['Emulation.setTouchEmulationEnabled']).toEqual({ enabled: true, maxTouchPoints: 5 });
    expect(commands['Emulation.setUserAgentOverride']).toEqual({ userAgent: 'Pixel UA', acceptLanguage: 'fr-FR' });
    // A locale alone keeps the tab's own agent.
    expect(byMethod(emulationCommands({ locale: 'de' }, undefined, 'Own UA'))['Emulation.setUserAgentOverride']).toEqual({
      userAgent: 'Own UA',
      acceptLanguage: 'de',
    });
  });

  it('network presets in bytes per second; headers for every origin in CDP, for one origin as a route', () => {
    const commands = byMethod(emulationCommands({ network: 'slow-3g', headers: { values: { 'x-a': '1' } } }, undefined, ''));
    expect(commands['Network.emulateNetworkConditions']).toEqual({ offline: false, latency: 2000, downloadThroughput: 50_000, uploadThroughput: 50_000 });
    expect(commands['Network.setExtraHTTPHeaders']).toEqual({ headers: { 'x-a': '1' } });
    const scoped = {
      headers: { values: { 'x-b': '2' }, origin: 'https://a.example' },
      httpCredentials: { username: 'u', password: 'p', origin: 'https://a.example' },
    };
    expect(byMethod(emulationCommands(scoped, undefined, ''))['Network.setExtraHTTPHeaders']).toEqual({ headers: {} });
    expect([...originHeaders(scoped)]).toEqual([['https://a.example', { 'x-b': '2', authorization: `Basic ${Buffer.from('u:p').toString('base64')}` }]]);
    expect(shownEmulation(scoped).httpCredentials?.password).toBe('********');
  });

  it('a change: left out stays, null clears', () => {
    expect(mergeEmulation({ timezone: 'Asia/Tokyo', locale: 'ja' }, { locale: null, colorScheme: 'dark' })).toEqual({
      timezone: 'Asia/Tokyo',
      colorScheme: 'dark',
    });
  });

  it('bad input names its field: a device, a timezone, a locale, a header, an origin', () => {
    expect(() => presetOf('Pixel 99', { 'Pixel 7': pixel })).toThrow(/device: no preset is named "Pixel 99"; try "Pixel 7"/);
    const issues = (body: object) => toolboxSchemas.emulation.safeParse(body).error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(issues({ timezone: 'Europe/Nowhere' })).toEqual(['timezone: must be an IANA timezone like Europe/Paris']);
    expect(issues({ locale: 'xx-notreal-locale-tag-thing' })).toEqual(['locale: must be a locale like fr-FR']);
    expect(issues({ headers: { values: { 'a b': '1' } } })?.[0]).toMatch(/^headers\.values/);
    expect(issues({ httpCredentials: { username: 'u', password: 'p', origin: 'https://a.example/path' } })).toEqual([
      'httpCredentials.origin: must be an origin like https://example.com',
    ]);
    expect(toolboxSchemas.emulation.parse({ timezone: 'Asia/Tokyo', locale: 'pt-BR' })).toMatchObject({
      timezone: 'Asia/Tokyo',
      locale: 'pt-BR',
      scope: 'tab',
    });
  });
});
