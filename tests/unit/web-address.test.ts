import { describe, expect, it } from 'vitest';
import { schemas } from '../../relay/src/api/schemas.js';
import { webAddress } from '../../relay/src/api/web-address.js';
import { validated } from '../../relay/src/validation.js';

/** Addresses as people and models type them, read as a browser's address bar reads them. */
describe('webAddress', () => {
  it('gives a host https, and a local server (localhost, an IP, a name with a port) http', () => {
    expect(webAddress('example.com')).toBe('https://example.com');
    expect(webAddress('www.example.com/docs?q=1#top')).toBe('https://www.example.com/docs?q=1#top');
    expect(webAddress('example.com:8443/app')).toBe('https://example.com:8443/app');
    expect(webAddress('bücher.de')).toBe('https://bücher.de');
    expect(webAddress('localhost')).toBe('http://localhost');
    expect(webAddress('localhost:18080')).toBe('http://localhost:18080');
    expect(webAddress('app.localhost:3000/x')).toBe('http://app.localhost:3000/x');
    expect(webAddress('127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(webAddress('192.168.1.10')).toBe('http://192.168.1.10');
    expect(webAddress('[::1]:8080/')).toBe('http://[::1]:8080/');
    expect(webAddress('intranet:8080')).toBe('http://intranet:8080');
    expect(webAddress('  example.org  ')).toBe('https://example.org');
  });

  it('takes a URL with a scheme as written, whatever the gate then says of it', () => {
    for (const url of [
      'https://example.com/',
      'http://localhost:3000',
      'about:blank',
      'file:///etc/hosts',
      'data:text/html,hi',
      'mailto:a@example.com',
      'javascript:alert(1)',
    ])
      expect(webAddress(url)).toBe(url);
  });

  it('is nothing for what is no address', () => {
    for (const typed of ['', 'hello', 'not a url', 'two words.com', 'user@example.com', '//example.com']) expect(webAddress(typed)).toBeUndefined();
  });

  it("is what the API schemas read: navigate, open, a remote profile's cdpUrl; a wrong one names the field in plain words", () => {
    expect(validated(schemas.navigate, { url: 'localhost:18080' }, 'body').url).toBe('http://localhost:18080');
    expect(validated(schemas.open, { url: 'example.com' }, 'body').url).toBe('https://example.com');
    expect(validated(schemas.open, {}, 'body').url).toBe('about:blank');
    expect(validated(schemas.createProfile, { name: 'remote', cdpUrl: '127.0.0.1:9222' }, 'body').cdpUrl).toBe('http://127.0.0.1:9222');
    expect(() => validated(schemas.navigate, { url: 'hello' }, 'body')).toThrow(
      /^url: "hello" is not a web address: give one like https:\/\/example\.com, example\.com or localhost:3000$/,
    );
    expect(() => validated(schemas.navigate, {}, 'body')).toThrow(/^url: /);
  });
});
