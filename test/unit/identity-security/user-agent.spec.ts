/** Device names for authentication history, from real User-Agent strings. */
import { deviceFromUserAgent } from '../../../src/modules/identity/security/user-agent';

describe('deviceFromUserAgent', () => {
  it.each([
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:120.0) Gecko/20100101 Firefox/120.0',
      { name: 'Firefox 120', platform: 'macOS 10.15' },
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      { name: 'Chrome 120', platform: 'Windows 10' },
    ],
    [
      'Mozilla/5.0 (Windows NT 6.3; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36',
      { name: 'Chrome 109', platform: 'Windows 8.1' },
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
      { name: 'Safari 17', platform: 'macOS 10.15' },
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36',
      { name: 'Chrome 119', platform: 'Linux' },
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1',
      { name: 'Mobile Safari 17', platform: 'iOS 17' },
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.43 Mobile Safari/537.36',
      { name: 'Chrome 120', platform: 'Android 14' },
    ],
    ['curl/8.4.0', { name: 'curl 8.4', platform: 'Unknown platform' }],
    ['python-requests/2.31.0', { name: 'python-requests 2.31', platform: 'Unknown platform' }],
    ['Go-http-client/1.1', { name: 'Go-http-client 1.1', platform: 'Unknown platform' }],
    ['PostmanRuntime/7.36.0', { name: 'PostmanRuntime 7.36', platform: 'Unknown platform' }],
    ['node', { name: 'Unknown client', platform: 'Unknown platform' }],
    ['', { name: 'Unknown client', platform: 'Unknown platform' }],
    ['   ', { name: 'Unknown client', platform: 'Unknown platform' }],
  ])('%p', (ua, expected) => {
    expect(deviceFromUserAgent(ua)).toEqual(expected);
  });

  it('handles a missing header', () => {
    expect(deviceFromUserAgent(undefined)).toEqual({ name: 'Unknown client', platform: 'Unknown platform' });
  });

  it('bounds and cleans hostile input', () => {
    const long = `${'A'.repeat(5000)}/1.2`;
    expect(deviceFromUserAgent(long).name).toBe('Unknown client'); // product names over 50 characters are not trusted
    expect(deviceFromUserAgent(`${'x'.repeat(40)}/9.9 ${'y'.repeat(100000)}`).name).toBe(`${'x'.repeat(40)} 9.9`);
    expect(deviceFromUserAgent('evil\u0000\u001b[31m/1.0')).toEqual({ name: 'Unknown client', platform: 'Unknown platform' });
    expect(deviceFromUserAgent('\u001b[31mevil/1.0').name).toBe('Unknown client');
    for (const value of Object.values(deviceFromUserAgent('Mozilla/5.0 ' + '(Windows NT 10.0) '.repeat(1000)))) {
      expect(value.length).toBeLessThanOrEqual(100);
    }
  });
});
