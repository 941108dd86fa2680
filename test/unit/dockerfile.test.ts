// The container image (README "Containers"): what the Dockerfile copies exists and is in the
// build context, the stages install production dependencies only, and the image's command
// (and compose's) serves from a production-only install laid out as the image lays it out.
// No Docker engine runs here, so the install and the command run on this machine, in a
// temporary directory that stands for the image's file system.

import t from 'tap';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { copiesOf, dockerIgnored, envOf, execForm, ofKind, readDockerfile, type Stage } from '../helpers/dockerfile.ts';
import { NODE, spawnListening, type ServerProcess } from '../helpers/process.ts';
import { ROOT } from '../helpers/server.ts';
import { parse as parseYaml } from 'yaml';

const stages = readDockerfile(ROOT);
const runtime = stages.at(-1)!;
const deps = stages.find((s) => s.name === 'deps');
const ignored = dockerIgnored(ROOT);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const compose = parseYaml(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { schema: 'failsafe' }) as any;

function files(dir: string, keep: (f: string) => boolean = () => true): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p, keep) : keep(f) ? [p] : [];
  });
}

const only = (stage: Stage, keyword: string) => {
  const found = ofKind(stage, keyword);
  if (found.length !== 1) throw new Error(`expected one ${keyword} in the stage FROM ${stage.from}, found ${found.length}`);
  return found[0]!;
};
const workdir = (stage: Stage) => only(stage, 'WORKDIR').args;
const volumes = (stage: Stage) => ofKind(stage, 'VOLUME').flatMap((v) => (v.args.startsWith('[') ? (JSON.parse(v.args) as string[]) : v.args.split(/\s+/)));
const imageCommand = () => [...execForm(only(runtime, 'ENTRYPOINT')), ...execForm(only(runtime, 'CMD'))];

t.test('every COPY source exists and is in the build context', async (t) => {
  const sources = stages.flatMap((s) => copiesOf(s).filter((c) => c.from === undefined)).flatMap((c) => c.sources);
  t.ok(sources.length >= 6, `${sources.join(' ')}`);
  for (const src of sources) {
    t.ok(existsSync(join(ROOT, src)), `${src} exists`);
    const inside = statSync(join(ROOT, src)).isDirectory() ? files(join(ROOT, src)).map((f) => relative(ROOT, f).split('\\').join('/')) : [src];
    const left = inside.filter((f) => ignored(f));
    t.same(left, [], `.dockerignore keeps nothing of ${src} out`);
  }
});

t.test('the host’s node_modules, tests, data and tenants stay out of the build context', async (t) => {
  for (const path of ['node_modules', 'node_modules/isolated-vm/package.json', 'app/node_modules/x/index.js', 'test/unit/dockerfile.test.ts', '.git/HEAD', 'data/svc.sqlite', 'svc.sqlite-wal', 'tenants/acme/models/notes.json']) {
    t.ok(ignored(path), `${path} is ignored`);
  }
  t.notOk(ignored('src/cli.ts'));
});

t.test('a deps stage installs production dependencies only; the runtime stage copies them', async (t) => {
  if (!deps) return t.fail('no stage "AS deps"');
  t.not(deps, runtime);
  t.match(runtime.from, /^node:24(?:[.-]|$)/, 'Node 24');
  t.equal(deps.from, runtime.from, 'one base, so that the native addons built or fetched in deps match the runtime’s C library');
  t.same(copiesOf(deps), [{ from: undefined, sources: ['package.json', 'package-lock.json'], dest: './' }], 'deps sees only the manifest and the lock file');
  t.match(only(deps, 'RUN').args, /^npm ci --omit=dev\b/);
  const fromDeps = copiesOf(runtime).filter((c) => c.from === 'deps');
  t.same(fromDeps, [{ from: 'deps', sources: [`${workdir(deps)}/node_modules`], dest: './node_modules' }], 'the runtime takes node_modules and nothing else from deps');
  t.notOk(ofKind(runtime, 'RUN').some((r) => /\bnpm\b/.test(r.args)), 'npm does not run in the runtime stage');
});

t.test('the image runs as a non-root user, binds 0.0.0.0 and keeps its data on a volume', async (t) => {
  const env = envOf(runtime);
  const user = ofKind(runtime, 'USER').at(-1)?.args;
  t.ok(user !== undefined && !/^(root|0)(:|$)/.test(user), `USER ${user}`);
  t.equal(env.HOST, '0.0.0.0');
  t.equal(env.NODE_ENV, 'production');
  const [volume, ...more] = volumes(runtime);
  t.same(more, []);
  t.match(env.SVC_STORE, new RegExp(`^sqlite:${volume}/`), 'the SQLite file is on the volume');
  t.ok(ofKind(runtime, 'RUN').some((r) => r.args.includes(`chown ${user}:${user} ${volume}`)), `the volume belongs to ${user}`);
  const app = copiesOf(runtime).find((c) => c.sources[0] === 'app');
  t.ok(app, 'the example app is copied');
  t.equal(env.SVC_APP, join(workdir(runtime), app!.dest), 'SVC_APP is the copied app');
  t.match(only(runtime, 'EXPOSE').args, env.PORT!);
});

t.test('the command runs svc with --no-node-snapshot; the health check asks /readyz', async (t) => {
  const command = imageCommand();
  t.equal(command[0], 'node');
  const script = command.findIndex((a) => !a.startsWith('-') && a !== 'node');
  t.ok(command.slice(1, script).includes('--no-node-snapshot'), 'a node flag, before the script (isolated-vm requires it on Node >= 20)');
  t.ok(existsSync(join(ROOT, command[script]!)), `${command[script]} exists`);
  t.match(execForm(only(runtime, 'HEALTHCHECK')).join(' '), /\/readyz/);
  t.equal(only(runtime, 'STOPSIGNAL').args, 'SIGTERM');
});

t.test('mongodb-memory-server downloads no MongoDB binary, at install or at run time', async (t) => {
  t.equal(pkg.allowScripts?.['mongodb-memory-server'], false, 'npm >= 11.16 skips its install script');
  t.equal(envOf(deps!).MONGOMS_DISABLE_POSTINSTALL, '1', 'so does any npm, in the deps stage');
  t.equal(envOf(runtime).MONGOMS_RUNTIME_DOWNLOAD, 'false', 'and --store mongodb-memory does not download one at run time');
});

t.test('every package the server imports is a production dependency', async (t) => {
  const depNames = new Set(Object.keys(pkg.dependencies));
  const builtins = new Set(builtinModules);
  for (const file of [...files(join(ROOT, 'src'), (f) => /\.(ts|js)$/.test(f)), ...files(join(ROOT, 'bin'))]) {
    // Static imports, and dynamic ones (`await import('typescript')` loads only when asked for, but must be there then).
    for (const m of readFileSync(file, 'utf8').matchAll(/^\s*import\s[^'"]*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm)) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith('.') || spec.startsWith('node:') || builtins.has(spec)) continue;
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
      t.ok(depNames.has(name), `${name} (imported by ${relative(ROOT, file)}) is in dependencies`);
    }
  }
});

// ---- The image, laid out in a temporary directory: each stage's file system under its own root.

/** Starts `argv` (its `node` being the project's Node 24) and waits for svc's listening line. */
function startCommand(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  if (argv[0] !== 'node') throw new Error(`the command does not start with node: ${argv.join(' ')}`);
  return spawnListening(NODE, argv.slice(1), { cwd, env });
}

/** Runs a command to its end; resolves with its exit code and output. */
function runToEnd(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

function call(url: string, method: string, path: string, host?: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(host ? { host } : {}) };
    const req = request({ host: hostname, port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, json: text && /json/.test(String(res.headers['content-type'])) ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

t.test('the image’s command serves from a production-only install', async (t) => {
  const fs = mkdtempSync(join(tmpdir(), 'svc-image-'));
  t.teardown(() => rmSync(fs, { recursive: true, force: true }));
  const rootOf = (stage: Stage) => join(fs, stage.name ?? 'runtime');
  // Node 24 first on the PATH: install scripts (isolated-vm picks its prebuilt addon by Node's ABI) and the commands run on it.
  const PATH = [dirname(NODE), process.env.PATH].join(delimiter);

  // deps: its COPYs, then its RUN's `npm ci --omit=dev` with the stage's ENV. Only that command
  // of the RUN line runs here: `npm cache clean --force` would empty this machine's npm cache.
  const depsRoot = rootOf(deps!);
  const depsDir = join(depsRoot, workdir(deps!));
  mkdirSync(depsDir, { recursive: true });
  for (const c of copiesOf(deps!)) for (const s of c.sources) cpSync(join(ROOT, s), join(depsDir, c.dest, s));
  // Without the npm_* variables of an enclosing `npm test` (its project, its Node's headers): a build starts clean.
  const outside = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|INIT_CWD$)/i.test(k)));
  const install = await runToEnd('npm', ['ci', '--omit=dev', '--ignore-scripts=false', '--no-audit', '--no-fund'], depsDir, { ...outside, ...envOf(deps!), PATH });
  t.equal(install.code, 0, 'npm ci --omit=dev');
  if (install.code !== 0) return t.comment(install.out);
  for (const dev of Object.keys(pkg.devDependencies)) t.notOk(existsSync(join(depsDir, 'node_modules', dev)), `dev dependency ${dev} is not installed`);
  t.same(files(depsRoot, (f) => /^mongod(\.exe)?$/.test(f)), [], 'no MongoDB binary was downloaded');

  // runtime: its COPYs (from the context and from deps) and its volume; paths in ENV are mapped
  // into the temporary file system. HOST and PORT are this test's: loopback, any free port. What
  // it copies from another stage is moved instead (the same files where the copy would put them,
  // without writing the 90 MB of node_modules again): nothing reads that stage after this.
  const root = rootOf(runtime);
  const dir = join(root, workdir(runtime));
  for (const c of copiesOf(runtime)) {
    for (const s of c.sources) {
      const from = c.from === undefined ? join(ROOT, s) : join(rootOf(stages.find((st) => st.name === c.from)!), s);
      const to = join(dir, c.dest, c.dest.endsWith('/') ? s : '');
      if (c.from === undefined) {
        cpSync(from, to, { recursive: true, verbatimSymlinks: true });
      } else {
        mkdirSync(dirname(to), { recursive: true });
        renameSync(from, to);
      }
    }
  }
  for (const v of volumes(runtime)) mkdirSync(join(root, v), { recursive: true });
  const inImage = (value: string) => value.replace(/(^|[:=])(\/[^\s:]*)/g, (_, lead: string, path: string) => lead + join(root, path));
  const imageEnv = Object.fromEntries(Object.entries(envOf(runtime)).map(([k, v]) => [k, inImage(v)]));
  const env = { PATH, HOME: fs, ...imageEnv, HOST: '127.0.0.1', PORT: '0' };
  t.ok(existsSync(imageEnv.SVC_APP!), 'SVC_APP is in the image');

  const healthcheck = async (argv: string[], port: string) => {
    t.equal(argv[0], 'node');
    return (await runToEnd(NODE, argv.slice(1), dir, { ...env, PORT: port })).code;
  };

  t.test('the Dockerfile’s ENTRYPOINT and CMD: the example app, SQLite on the volume', async (t) => {
    const svc = await startCommand(imageCommand(), dir, env);
    // /readyz is 503 until the start-up checks are done; the summary line says they are.
    await svc.waitFor(/app: serves departments, employees/);
    t.equal(await healthcheck(execForm(only(runtime, 'HEALTHCHECK')), new URL(svc.url).port), 0, 'HEALTHCHECK passes');
    t.equal((await call(svc.url, 'GET', '/healthz')).status, 200);
    // A handler runs in an isolate: isolated-vm and esbuild work from this install with these flags.
    t.equal((await call(svc.url, 'POST', '/resources/employees', undefined, { name: 'Ada', badge: 'A1' })).status, 201);
    t.match((await call(svc.url, 'GET', '/resources/departments')).status, 200);
    t.ok(existsSync(join(root, volumes(runtime)[0]!, 'svc.sqlite')), 'the data is on the volume');
    svc.child.kill('SIGTERM');
    t.equal(await svc.exited, 0, 'SIGTERM: exit 0');
  });

  t.test('the image’s svc check --types type-checks handlers: TypeScript is a production dependency', async (t) => {
    const argv = [...execForm(only(runtime, 'ENTRYPOINT')), 'check', '--types'];
    t.equal(argv[0], 'node');
    const { code, out } = await runToEnd(NODE, argv.slice(1), dir, env);
    t.equal(code, 0, out);
    t.match(out, /svc check: \d+ models, \d+ handlers: ok/);
  });

  t.test('compose’s svc command, its MongoDB store swapped for SQLite: tenants, workers', async (t) => {
    const service = compose.services.svc;
    // Every flag of it is known to the CLI (compose.test.ts); an unknown one would stop the server here.
    const command = [...(service.command as string[])];
    const store = command.indexOf('--store');
    command[store + 1] = `sqlite:${join(root, volumes(runtime)[0]!, 'svc.sqlite')}`;
    // Bind mounts: the container path becomes the host directory (read-only there; svc only reads it).
    const binds = (service.volumes as { type: string; source: string; target: string }[]).filter((v) => v.type === 'bind');
    const argv = command.map((a) => binds.find((b) => b.target === a)?.source ?? a).map((a) => (a.startsWith('./') ? join(ROOT, a) : a));
    // compose's `command` replaces the image's CMD; the ENTRYPOINT stays.
    const svc = await startCommand([...execForm(only(runtime, 'ENTRYPOINT')), ...argv], dir, env);
    const workers = Number(/, (\d+) workers/.exec(svc.output())?.[1] ?? 1);
    // Every worker checks the tenants and says so; then any of them may answer /readyz.
    await svc.waitFor(new RegExp(`(?:tenant directories in[^]*?){${workers}}`));
    t.notMatch(svc.output(), /problem|not served/, 'every example tenant is valid');
    t.equal(await healthcheck((service.healthcheck.test as string[]).slice(1), new URL(svc.url).port), 0, 'compose’s healthcheck passes');
    t.equal((await call(svc.url, 'POST', '/resources/notes', 'acme.localhost', { title: 'from acme' })).status, 201);
    t.same(((await call(svc.url, 'GET', '/resources/notes', 'acme.localhost')).json as { title: string }[]).map((n) => n.title), ['from acme']);
    t.same((await call(svc.url, 'GET', '/resources/notes', 'globex.localhost')).json, [], 'tenants share no data');
    svc.child.kill('SIGTERM');
    t.equal(await svc.exited, 0, 'SIGTERM drains every worker: exit 0');
  });
});
