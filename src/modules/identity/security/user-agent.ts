/**
 * Device description for authentication history, from the User-Agent header (untrusted user input): browser name and
 * major version ('Firefox 120'), or for non-browser clients the first product token ('curl 8.4'); and the operating
 * system with its major version ('Windows 10', 'iOS 17'; 'macOS 10.15' keeps the minor, since 10.x releases differ
 * there). Both are stripped of control characters and bounded to 100 characters.
 */
import { UAParser } from 'ua-parser-js';

export interface DeviceDescription {
  name: string;
  platform: string;
}

export const UNKNOWN_CLIENT = 'Unknown client';
export const UNKNOWN_PLATFORM = 'Unknown platform';
const MAX_LENGTH = 100;
const MAX_UA_LENGTH = 1024; // parse no more than this; real User-Agent strings are far shorter
// A leading product token such as curl/8.4.0, python-requests/2.31.0, Go-http-client/1.1, PostmanRuntime/7.36.0.
const PRODUCT = /^([A-Za-z][A-Za-z0-9._+-]{0,49})\/v?(\d{1,6})(?:\.(\d{1,6}))?/;
const OS_NAMES: Record<string, string> = { 'Mac OS': 'macOS' };

export function deviceFromUserAgent(ua: string | undefined): DeviceDescription {
  const text = typeof ua === 'string' ? ua.slice(0, MAX_UA_LENGTH).trim() : '';
  if (!text) return { name: UNKNOWN_CLIENT, platform: UNKNOWN_PLATFORM };
  const { browser, os } = new UAParser(text).getResult();
  return { name: clientName(text, browser.name, browser.version), platform: platformName(os.name, os.version) };
}

function clientName(ua: string, browserName: string | undefined, browserVersion: string | undefined): string {
  if (browserName) return bounded(withVersion(browserName, majorOf(browserVersion)), UNKNOWN_CLIENT);
  const product = PRODUCT.exec(ua);
  if (product) return bounded(`${product[1]} ${product[2]}${product[3] !== undefined ? `.${product[3]}` : ''}`, UNKNOWN_CLIENT);
  return UNKNOWN_CLIENT;
}

function platformName(osName: string | undefined, osVersion: string | undefined): string {
  if (!osName) return UNKNOWN_PLATFORM;
  const name = OS_NAMES[osName] ?? osName;
  return bounded(withVersion(name, platformVersion(name, osVersion)), UNKNOWN_PLATFORM);
}

/** Major version, except where the minor or a name is the release: Windows 8.1 / XP, macOS 10.15. */
function platformVersion(name: string, version: string | undefined): string | undefined {
  if (!version) return undefined;
  if (name === 'Windows') return version;
  if (name === 'macOS' && version.startsWith('10.')) return version.split('.').slice(0, 2).join('.');
  return majorOf(version);
}

function majorOf(version: string | undefined): string | undefined {
  const major = version?.split(/[._]/)[0];
  return major && /^\d+$/.test(major) ? major : undefined;
}

function withVersion(name: string, version: string | undefined): string {
  return version ? `${name} ${version}` : name;
}

/** Control characters removed, whitespace collapsed, at most MAX_LENGTH characters (code points). */
function bounded(value: string, fallback: string): string {
  const clean = value.replace(/\p{Cc}/gu, ' ').replace(/\s+/g, ' ').trim();
  return [...clean].slice(0, MAX_LENGTH).join('').trim() || fallback;
}
