// An app's svc.json (README "App settings"): a file that does not match is app-settings-invalid
// with what to fix, never a value. A syntax error quoted the file (JSON.parse's message shows the
// text around the error), so an `env` secret next to a typo went into the problem and the log. An
// allow-list origin that fits the schema's pattern but is no URL (a port past 65535) threw a
// TypeError: 500 internal-error. An unknown key was "must NOT have additional properties" without
// its name. A byte order mark made the file "not JSON".

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { DEFAULT_LIMITS } from '../../src/exchange/limits.ts';
import { loadSettings } from '../../src/tenancy/settings.ts';

const SECRET = 'sk_live_51Hxyz_do_not_show';

function settings(t: Test, text: string): ReturnType<typeof loadSettings> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-settings-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'svc.json'), text);
  return loadSettings(dir, DEFAULT_LIMITS, []);
}

t.test('a syntax error says where, never what is there', async (t) => {
  for (const text of [`{"env":{"API_KEY":${SECRET}}}`, `{"env":{"API_KEY":"${SECRET}"},}`, `{"env":{"API_KEY":"${SECRET}"}`]) {
    t.throws(() => settings(t, text), { code: 'app-settings-invalid', message: /^svc\.json is not valid JSON( \(at character \d+\))?: fix its syntax\.$/ }, text.slice(0, 20));
    try {
      settings(t, text);
    } catch (e) {
      t.notMatch(String((e as Error).message), /sk_live/, 'the secret is not in the message');
    }
  }
});

t.test('an allow-list origin that is no URL is app-settings-invalid naming the entry', async (t) => {
  t.throws(() => settings(t, '{"fetch":{"allow":["https://ok.example","http://a.com:99999"]}}'), {
    code: 'app-settings-invalid',
    message: /\/fetch\/allow\/1 is not a URL/,
  });
  t.same(settings(t, '{"fetch":{"allow":["http://a.com:8080"]}}').fetchAllow, ['http://a.com:8080']);
});

t.test('an unknown key is named; a byte order mark is fine', async (t) => {
  t.throws(() => settings(t, '{"fetch":{"alow":[]}}'), { code: 'app-settings-invalid', message: /must NOT have additional properties \(alow\)/ });
  t.same(settings(t, `\uFEFF{"env":{"A":"b"}}`).env.get('A'), 'b');
});

// A key written twice was read as its last value, the first dropped without a word: a second
// `cpuLimitMs` undid the first, a second env name replaced a value.
t.test('a key written twice in one object is refused with its place, never its value', async (t) => {
  const env = `{"env":{"API_KEY":"${SECRET}","OTHER":"x","API_KEY":"${SECRET}2"}}`;
  t.throws(() => settings(t, env), {
    code: 'app-settings-invalid',
    message: `svc.json: /env: the key "API_KEY" appears more than once (at character ${env.lastIndexOf('"API_KEY"')}): write each key once.`,
  });
  try {
    settings(t, env);
  } catch (e) {
    t.notMatch(String((e as Error).message), /sk_live/, 'the secret is not in the message');
  }
  t.throws(() => settings(t, '{"limits":{"cpuLimitMs":10,"fetchCount":1,"cpuLimitMs":1000}}'), { message: /^svc\.json: \/limits: the key "cpuLimitMs" appears more than once/ });
  t.throws(() => settings(t, '{"env":{},"fetch":{"allow":[]},"env":{}}'), { message: /^svc\.json: \/: the key "env" appears more than once/ });
  t.throws(() => settings(t, '{"env":{"A":"1","\\u0041":"2"}}'), { message: /^svc\.json: \/env: the key "A" appears more than once/ }, 'names compare after unescaping');
  t.same([...settings(t, '{"env":{"A":"1"},"limits":{"fetchCount":1}}').env], [['A', '1']], 'one of each is fine');
});
