// compose.yaml (README "Containers"): what it assumes of the image, the CLI and this checkout.
// No Docker engine runs here; test/unit/dockerfile.test.ts runs its svc command.

import t from 'tap';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../src/cli.ts';
import { autoWorkers } from '../../src/cluster.ts';
import { envOf, execForm, ofKind, readDockerfile } from '../helpers/dockerfile.ts';
import { ROOT } from '../helpers/server.ts';
import { parse as parseYaml } from 'yaml';

interface Bind {
  type: string;
  source: string;
  target: string;
  read_only?: string;
}

const compose = parseYaml(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { schema: 'failsafe' }) as any;
const svc = compose.services.svc;
const mongo = compose.services.mongo;
const command = svc.command as string[];
const flag = (name: string) => command[command.indexOf(name) + 1];
const image = readDockerfile(ROOT).at(-1)!;
const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)?.[1] ?? NaN);

t.test('svc is built from this Dockerfile and serves the mounted tenants, read-only, on MongoDB', async (t) => {
  t.equal(svc.build, '.');
  t.ok(existsSync(join(ROOT, 'Dockerfile')));
  t.equal(command[0], 'serve', 'the command replaces the image’s CMD: the svc subcommand comes first');
  t.equal(flag('--workers'), 'auto');
  t.ok(command.includes('--wait-for-store'), 'waits for MongoDB instead of failing while it starts');
  const store = new URL(flag('--store')!);
  t.equal(store.protocol, 'mongodb:');
  t.ok(Object.hasOwn(compose.services, store.hostname), `the store's host "${store.hostname}" is a service`);
  t.equal(store.port, '27017');
  const tenants = (svc.volumes as Bind[]).find((v) => v.target === flag('--tenants'));
  t.match(tenants, { type: 'bind', read_only: 'true' }, `${flag('--tenants')} is a read-only bind mount`);
});

t.test('every path compose mounts exists; every named volume is declared', async (t) => {
  const all = Object.values(compose.services as Record<string, { volumes?: (Bind | string)[] }>).flatMap((s) => s.volumes ?? []);
  t.ok(all.length >= 2);
  for (const v of all) {
    const source = typeof v === 'string' ? v.split(':')[0]! : v.source;
    if (source.startsWith('.') || source.startsWith('/')) {
      t.ok(existsSync(join(ROOT, source)) && statSync(join(ROOT, source)).isDirectory(), `${source} is a directory`);
    } else {
      t.ok(Object.hasOwn(compose.volumes ?? {}, source), `volume ${source} is declared`);
    }
  }
  const tenants = (svc.volumes as Bind[]).find((v) => v.target === flag('--tenants'))!;
  const names = readdirSync(join(ROOT, tenants.source), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  t.ok(names.length > 0, 'the example has tenants');
  for (const name of names) t.match(name, /^[a-z0-9-]+$/, `${name} is a tenant name`);
});

t.test('MongoDB: the official image, its data on a named volume, healthy once it answers ping', async (t) => {
  t.equal(mongo.image, 'mongo:8');
  t.ok((mongo.volumes as string[]).some((v) => /^[a-z][\w-]*:\/data\/db$/.test(v)), 'a named volume on /data/db');
  const test = (mongo.healthcheck.test as string[]).join(' ');
  t.match(test, /^CMD mongosh .*ping/);
  t.same(svc.depends_on, { mongo: { condition: 'service_healthy' } }, 'svc starts once MongoDB is healthy');
  t.notOk(mongo.ports, 'MongoDB is not published outside the project network');
});

t.test('svc’s health check is the image’s, on its port; stopping waits for the drain', async (t) => {
  t.same(svc.healthcheck.test, ['CMD', ...execForm(ofKind(image, 'HEALTHCHECK')[0]!)]);
  t.match(svc.healthcheck.test.join(' '), /\/readyz/);
  const [, container] = /^"?(?:\d+:)?(\d+)"?$/.exec((svc.ports as string[])[0]!) ?? [];
  t.equal(container, envOf(image).PORT, 'the published port is the one svc listens on');
  // The server lets in-flight requests finish for up to 10 s after SIGTERM (README "Configuration").
  t.ok(seconds(svc.stop_grace_period) > 10, `stop_grace_period ${svc.stop_grace_period} leaves the drain its 10 s`);
});

t.test('the CLI takes compose’s command', async (t) => {
  // A flag parseArgs does not know (a known one without its value fails otherwise).
  const unknown = command.filter((a) => {
    if (!a.startsWith('--')) return false;
    try {
      parseConfig(['serve', a], {});
      return false;
    } catch (e) {
      return (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    }
  });
  t.same(unknown, [], 'every flag is known');
  const { command: sub, config } = parseConfig(command, {});
  t.equal(sub, 'serve');
  t.match(config, { tenants: '/srv/tenants', workers: autoWorkers(), store: 'mongodb://mongo:27017/svc' });
});
