// --public-url is checked so that what no client could use is refused at start-up, naming the
// flag. The URL parser still let through a host that is IPv4 written another way (`https://1.2.3`
// is 1.2.0.3, `http://0x7f.1` and `http://2130706433` are 127.0.0.1: a missing octet went
// unnoticed, as `1.2.3.999` no longer does), a name with an empty label (`https://api..example.com`,
// `https://.`), and port 0. The server wrote the text as given into Location, Link and Atom URLs.

import t from 'tap';
import { parseConfig } from '../../src/cli.ts';

const publicUrl = (url: string, env: NodeJS.ProcessEnv = {}) => parseConfig(['serve', '--tenants', '/t', '--public-url', url], env).config.publicUrl;

t.test('IPv4 written other than as four numbers is refused, saying which address it is read as', async (t) => {
  const refused: [string, string][] = [
    ['https://1.2.3', '1.2.0.3'],
    ['http://0x7f.1', '127.0.0.1'],
    ['http://0X7F000001:8080', '127.0.0.1'],
    ['http://2130706433', '127.0.0.1'],
    ['http://0177.0.0.1', '127.0.0.1'],
    ['https://10.1', '10.0.0.1'],
    ['https://1.2.3.4.', '1.2.3.4'],
  ];
  for (const [url, address] of refused) {
    t.throws(
      () => publicUrl(url),
      new RegExp(`^--public-url ${url.replaceAll('.', '\\.')}: .* is read as the IPv4 address ${address.replaceAll('.', '\\.')}; write an IPv4 address as four numbers of 0 to 255`),
      url,
    );
  }
  t.throws(() => parseConfig(['serve'], { SVC_PUBLIC_URL: 'http://127.1' }), /^SVC_PUBLIC_URL http:\/\/127\.1: 127\.1 is read as the IPv4 address 127\.0\.0\.1/, 'from the environment too');
});

t.test('a name with an empty label, and port 0, are refused', async (t) => {
  for (const url of ['https://api..example.com', 'https://.example.com', 'https://.', 'https://{tenant}..example.com']) {
    t.throws(() => publicUrl(url), /: the host .* has an empty label; write a name such as api\.example\.com$/, url);
  }
  for (const url of ['https://api.example.com:0', 'http://192.0.2.1:00', 'https://[::1]:0']) {
    t.throws(() => publicUrl(url), /: no client can connect to port 0; give the port clients use \(1 to 65535\), or none$/, url);
  }
});

t.test('names, four-number IPv4, bracketed IPv6 and a name ending in a dot are still taken as given', async (t) => {
  for (const url of [
    'https://api.example.com',
    'https://api.example.com.',
    'https://{tenant}.example.com',
    'http://192.0.2.1',
    'http://192.0.2.1:8080',
    'https://[2001:db8::1]',
    'https://[::ffff:192.0.2.1]',
    'http://localhost:3000',
    'https://API.Example.COM:65535',
    'http://1.2.3.4x',
  ]) {
    t.equal(publicUrl(url), url, url);
  }
});
