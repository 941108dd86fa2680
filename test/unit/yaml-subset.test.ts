// The YAML subset reader of test/helpers: what it reads, and that it refuses what it does not know.

import t from 'tap';
import { parseYamlSubset } from '../helpers/yaml-subset.ts';

t.test('mappings, sequences, sequences of mappings, quoted and flow scalars, comments', async (t) => {
  const doc = [
    '# a comment',
    'services:',
    '  web:',
    '    command: ["serve", "--x", \'it\'\'s\', plain]   # trailing',
    '    ports:',
    '      - "8080:8080"',
    '      - 9000:9000',
    '    volumes:',
    '    - type: bind',
    '      source: ./a # not a key',
    '      read_only: true',
    '    - named:/data',
    '    env: "a \\"quoted\\" #1"',
    'volumes:',
    '  data:',
  ].join('\n');
  t.same(parseYamlSubset(doc), {
    services: {
      web: {
        command: ['serve', '--x', "it's", 'plain'],
        ports: ['8080:8080', '9000:9000'],
        volumes: [{ type: 'bind', source: './a', read_only: 'true' }, 'named:/data'],
        env: 'a "quoted" #1',
      },
    },
    volumes: { data: null },
  });
});

t.test('refuses what is outside the subset instead of misreading it', async (t) => {
  t.throws(() => parseYamlSubset('a: &anchor 1\nb: *anchor'), /outside the subset/);
  t.throws(() => parseYamlSubset('a: |\n  text'), /outside the subset/);
  t.throws(() => parseYamlSubset('a: { b: 1 }'), /outside the subset/);
  t.throws(() => parseYamlSubset('a: [b, [c]]'), /nested flow/);
  t.throws(() => parseYamlSubset('a:\n\tb: 1'), /tabs/);
  t.throws(() => parseYamlSubset('a: 1\na: 2'), /duplicate key/);
  t.throws(() => parseYamlSubset('a: 1\n   b: 2'), /unexpected indentation/);
  t.throws(() => parseYamlSubset('a: "open'), /unterminated/);
});
