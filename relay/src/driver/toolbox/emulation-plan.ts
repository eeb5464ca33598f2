import type { Protocol } from 'devtools-protocol';
import { NETWORK_PRESETS, type EmulationSettings } from '../../api/toolbox-schemas.js';
import { BadRequestError } from '../../errors.js';

/**
 * Emulation as CDP commands, pure: settings in, the commands that put a tab
 * in that state out. Every category is stated whole each time (a cleared
 * field is sent as "no override"), so applying a plan twice, or after
 * another, leaves the tab exactly as the settings say.
 */

/** Settings as held: only fields that are set (a request's `null` removed them). */
export type HeldEmulation = { [K in keyof EmulationSettings]?: NonNullable<EmulationSettings[K]> };

/** What a device preset sets (Playwright's descriptors). */
export interface DevicePreset {
  viewport: { width: number; height: number };
  screen?: { width: number; height: number };
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
  userAgent: string;
}

/** A change over what is held: a field left out stays, `null` clears it. */
export function mergeEmulation(held: HeldEmulation, change: EmulationSettings): HeldEmulation {
  const merged: Record<string, unknown> = { ...held };
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged as HeldEmulation;
}

/** Playwright's device presets, loaded with playwright-core (which the driver loads anyway). */
export async function devicePresets(): Promise<Record<string, DevicePreset>> {
  return (await import('playwright-core')).devices as Record<string, DevicePreset>;
}

/** The preset by its name, or a 400 naming the field and the nearest names. */
export function presetOf(name: string, presets: Record<string, DevicePreset>): DevicePreset {
  const preset = presets[name];
  if (preset) return preset;
  const words = name.toLowerCase().split(/\s+/);
  const near = Object.keys(presets).filter(
    (known) => words.some((word) => word.length > 2 && known.toLowerCase().includes(word)) && !known.endsWith('landscape'),
  );
  const examples = (near.length ? near : ['iPhone 13', 'Pixel 7', 'iPad Mini', 'Desktop Chrome']).slice(0, 6).map((known) => JSON.stringify(known));
  throw new BadRequestError(`Invalid emulation: device: no preset is named ${JSON.stringify(name)}; try ${examples.join(', ')} (Playwright's names)`);
}

export type EmulationCommand =
  | ['Emulation.setDeviceMetricsOverride', Protocol.Emulation.SetDeviceMetricsOverrideRequest]
  | ['Emulation.clearDeviceMetricsOverride', Record<string, never>]
  | ['Emulation.setTouchEmulationEnabled', Protocol.Emulation.SetTouchEmulationEnabledRequest]
  | ['Emulation.setUserAgentOverride', Protocol.Emulation.SetUserAgentOverrideRequest]
  | ['Emulation.setLocaleOverride', Protocol.Emulation.SetLocaleOverrideRequest]
  | ['Emulation.setTimezoneOverride', Protocol.Emulation.SetTimezoneOverrideRequest]
  | ['Emulation.setGeolocationOverride', Protocol.Emulation.SetGeolocationOverrideRequest]
  | ['Emulation.clearGeolocationOverride', Record<string, never>]
  | ['Emulation.setEmulatedMedia', Protocol.Emulation.SetEmulatedMediaRequest]
  | ['Emulation.setCPUThrottlingRate', Protocol.Emulation.SetCPUThrottlingRateRequest]
  | ['Network.emulateNetworkConditions', Protocol.Network.EmulateNetworkConditionsRequest]
  | ['Network.setExtraHTTPHeaders', Protocol.Network.SetExtraHTTPHeadersRequest];

/** kbit/s → bytes/s, as CDP counts throughput. */
const bytesPerSecond = (kbps: number) => (kbps * 1000) / 8;

/**
 * The commands for `settings` on a tab whose own user agent is
 * `defaultUserAgent` (a locale alone still needs one to go with its
 * Accept-Language). Headers for every origin are here; headers for one
 * origin, and HTTP credentials, are a route (originHeaders).
 */
export function emulationCommands(settings: HeldEmulation, device: DevicePreset | undefined, defaultUserAgent: string): EmulationCommand[] {
  const commands: EmulationCommand[] = [];
  const viewport = settings.viewport ?? device?.viewport;
  const scale = settings.deviceScaleFactor ?? device?.deviceScaleFactor;
  const mobile = settings.isMobile ?? device?.isMobile ?? false;
  if (viewport || scale !== undefined || mobile) {
    const screen = settings.viewport ? undefined : device?.screen;
    commands.push([
      'Emulation.setDeviceMetricsOverride',
      {
        width: viewport?.width ?? 0,
        height: viewport?.height ?? 0,
        deviceScaleFactor: scale ?? 0,
        mobile,
        ...(screen ? { screenWidth: screen.width, screenHeight: screen.height } : {}),
      },
    ]);
  } else {
    commands.push(['Emulation.clearDeviceMetricsOverride', {}]);
  }
  const touch = settings.hasTouch ?? device?.hasTouch ?? false;
  commands.push(['Emulation.setTouchEmulationEnabled', touch ? { enabled: true, maxTouchPoints: 5 } : { enabled: false }]);
  const userAgent = settings.userAgent ?? device?.userAgent;
  // The user agent and Accept-Language travel together in CDP: a locale alone keeps the tab's own agent.
  commands.push([
    'Emulation.setUserAgentOverride',
    userAgent || settings.locale
      ? { userAgent: userAgent ?? defaultUserAgent, ...(settings.locale ? { acceptLanguage: settings.locale } : {}) }
      : { userAgent: '' },
  ]);
  commands.push(['Emulation.setLocaleOverride', settings.locale ? { locale: settings.locale } : {}]);
  commands.push(['Emulation.setTimezoneOverride', { timezoneId: settings.timezone ?? '' }]);
  commands.push(
    settings.geolocation
      ? [
          'Emulation.setGeolocationOverride',
          { latitude: settings.geolocation.latitude, longitude: settings.geolocation.longitude, accuracy: settings.geolocation.accuracy ?? 10 },
        ]
      : ['Emulation.clearGeolocationOverride', {}],
  );
  commands.push([
    'Emulation.setEmulatedMedia',
    {
      features: [
        { name: 'prefers-color-scheme', value: settings.colorScheme ?? '' },
        { name: 'prefers-reduced-motion', value: settings.reducedMotion ?? '' },
      ],
    },
  ]);
  commands.push(['Emulation.setCPUThrottlingRate', { rate: settings.cpuThrottling ?? 1 }]);
  const conditions = typeof settings.network === 'string' ? NETWORK_PRESETS[settings.network] : settings.network;
  commands.push([
    'Network.emulateNetworkConditions',
    {
      offline: settings.offline ?? false,
      latency: conditions?.latencyMs ?? 0,
      downloadThroughput: conditions ? bytesPerSecond(conditions.downloadKbps) : -1,
      uploadThroughput: conditions ? bytesPerSecond(conditions.uploadKbps) : -1,
    },
  ]);
  const everyOrigin = settings.headers && !settings.headers.origin ? settings.headers.values : {};
  commands.push(['Network.setExtraHTTPHeaders', { headers: everyOrigin }]);
  return commands;
}

/** Headers bound to one origin each (extra headers with an origin, and HTTP credentials as a Basic Authorization). */
export function originHeaders(settings: HeldEmulation): Map<string, Record<string, string>> {
  const byOrigin = new Map<string, Record<string, string>>();
  const add = (origin: string, headers: Record<string, string>) => byOrigin.set(origin, { ...byOrigin.get(origin), ...headers });
  if (settings.headers?.origin) add(settings.headers.origin, settings.headers.values);
  const credentials = settings.httpCredentials;
  if (credentials) add(credentials.origin, { authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` });
  return byOrigin;
}

/** Settings as shown: HTTP credentials never carry their password out. */
export function shownEmulation(settings: HeldEmulation): HeldEmulation {
  return settings.httpCredentials ? { ...settings, httpCredentials: { ...settings.httpCredentials, password: '********' } } : settings;
}
