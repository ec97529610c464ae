import { describe, expect, it } from 'vitest';
import { exposureNotice, isLoopback, refusal } from '../../src/listen/index.js';

/*
 * Whom a listener answers, as rules over the Host and Origin a request
 * carries and where the server is bound (what `server.address()` says).
 */

const statusOf = (headers: { host?: string; origin?: string }, address: string, port = 7357) => refusal(headers, { address, port })?.status ?? 'answered';

describe('where a server is bound', () => {
  it('loopback is localhost, 127.0.0.0/8 and ::1 in any spelling; nothing else', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])
      expect([address, isLoopback(address)]).toEqual([address, true]);
    for (const address of ['0.0.0.0', '::', '1::', '10.0.0.1', '::ffff:10.0.0.1', '128.0.0.1', 'localhost.', 'evil.localhost', 'example.com', ''])
      expect([address, isLoopback(address)]).toEqual([address, false]);
  });
});

describe('on loopback', () => {
  it('answers its loopback names with its port, whichever loopback address it is bound to', () => {
    for (const bound of ['127.0.0.1', '::1', '127.0.0.2']) {
      for (const host of ['127.0.0.1:7357', 'localhost:7357', 'LocalHost:7357', '[::1]:7357'])
        expect([bound, host, statusOf({ host }, bound)]).toEqual([bound, host, 'answered']);
    }
    expect(statusOf({ host: '127.0.0.2:7357' }, '127.0.0.2')).toBe('answered');
  });

  it('refuses (421) a Host that is another name (DNS rebinding), another port, missing, or bare on a port that is not 80', () => {
    for (const host of ['evil.example:7357', 'evil.example', '127.0.0.1.nip.io:7357', 'localhost:7358', 'localhost', '127.0.0.1', '', undefined])
      expect([host, statusOf({ host }, '127.0.0.1')]).toEqual([host, 421]);
  });

  it('takes a bare Host on port 80, where browsers leave the port out', () => {
    expect(statusOf({ host: 'localhost' }, '127.0.0.1', 80)).toBe('answered');
    expect(statusOf({ host: 'localhost', origin: 'http://localhost' }, '127.0.0.1', 80)).toBe('answered');
  });

  it('answers no Origin (curl, a script) and its own pages by any loopback name; refuses (403) a page from anywhere else', () => {
    const host = '127.0.0.1:7357';
    for (const origin of [undefined, 'http://127.0.0.1:7357', 'http://localhost:7357', 'http://[::1]:7357'])
      expect([origin, statusOf({ host, origin }, '127.0.0.1')]).toEqual([origin, 'answered']);
    for (const origin of ['http://evil.example', 'http://127.0.0.1:8000', 'https://127.0.0.1:7357', 'http://localhost', 'null', '', 'file://'])
      expect([origin, statusOf({ host, origin }, '127.0.0.1')]).toEqual([origin, 403]);
  });
});

describe('off loopback', () => {
  it('answers any Host, and a page only from the address it asked for', () => {
    for (const host of ['dash.example:7357', '10.0.0.5:7357', 'anything']) expect(statusOf({ host }, '0.0.0.0')).toBe('answered');
    expect(statusOf({ host: '10.0.0.5:7357', origin: 'http://10.0.0.5:7357' }, '0.0.0.0')).toBe('answered');
    expect(statusOf({ host: 'dash.example', origin: 'https://dash.example' }, '::')).toBe('answered');
    for (const origin of ['http://evil.example', 'http://10.0.0.5:80', 'null']) expect(statusOf({ host: '10.0.0.5:7357', origin }, '0.0.0.0')).toBe(403);
    expect(statusOf({ origin: 'http://10.0.0.5:7357' }, '0.0.0.0')).toBe(403);
  });

  it('says so in one line at start; on loopback it says nothing', () => {
    const notice = exposureNotice({ address: '0.0.0.0', port: 7357 })!;
    expect(notice.split('\n')).toHaveLength(1);
    expect(notice).toContain('not loopback only');
    expect(notice).toContain('any Host');
    expect(notice).toContain('Origin http://<Host>');
    for (const address of ['127.0.0.1', '::1']) expect(exposureNotice({ address, port: 7357 })).toBeNull();
  });
});
