// Handler scripts → one script each: esbuild bundles the entry with its relative imports, cached until an input changes.

import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import type * as esbuild from 'esbuild';
import { SvcError } from '../errors.ts';
import { AppFileError, readAppFile } from '../model/app-file.ts';
import { statNow } from '../model/file-stat.ts';
import type { Exchange } from '../exchange/exchange.ts';
import { DEFAULT_LIMITS, type Limits } from '../exchange/limits.ts';
import { EVENTS, handlerName, type EventName } from '../routing/events.ts';
import { CompileTimeout, CompilerDied, inLane, type LaneEsbuild } from './compile-lanes.ts';
import { parseInWorker } from './v8-parse.ts';

export interface CompileError {
  /** esbuild's message, without a location. */
  readonly text: string;
  /** `resources/x.ts:3:10`, relative to the app directory; absent when esbuild gave none. */
  readonly location?: string;
  /**
   * The handler met one of the server's bounds (size, compile time, a compiler crash): the text
   * holds no source, so clients see it outside development mode too.
   */
  readonly bound?: true;
}

export type Artifact =
  | {
      readonly ok: true;
      /** Content hash of every input and of this compiler's settings. */
      readonly hash: string;
      /** `resources/x.ts`, relative to the app directory. */
      readonly rel: string;
      /** A function expression; calling it runs the module body and returns its exports. */
      readonly code: string;
      /** The script's file name in isolate stack traces. */
      readonly scriptName: string;
      /** The whole handler is `svc.delegate()`: the default handler can serve it without an isolate. */
      readonly delegateOnly: boolean;
      /**
       * The events the handler defines as `on<Event>` functions or methods, in its file or one it
       * imports, read from the bundle; undefined when it defines none (a top-level script serves every event).
       */
      readonly events: readonly EventName[] | undefined;
      readonly map: SourceMap;
    }
  | { readonly ok: false; readonly hash: string; readonly rel: string; readonly error: CompileError };

/** Bump when the generated code changes shape, so that no stale cache entry is reused. */
const COMPILER_VERSION = '2';

/** Extensions a handler may import, and esbuild's loader for each. */
const LOADERS: Readonly<Record<string, esbuild.Loader>> = {
  '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.json': 'json',
};
const RESOLVE_SUFFIXES = ['', '.ts', '.js', '.mts', '.mjs', '.json', '/index.ts', '/index.js'];

/** Words that cannot follow `typeof` as an identifier. */
const RESERVED = new Set(
  ('break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await arguments eval').split(' '),
);

const NAMESPACE = 'svc';
const SCRIPT_PREFIX = 'svc-handler:';

/** `stat` identity of a file (or `missing`): any change to the file changes it. */
function fingerprint(file: string): string {
  return statNow(file)?.key ?? 'missing';
}

/**
 * Code appended to the entry module: it hands the dispatcher the event functions declared at the
 * entry's top level (exported or not) and every binding spelled like the collection in any case
 * (a class candidate). `typeof` of an undeclared name is safe, so probing names costs nothing.
 */
function formsFooter(source: string, collection: string): string {
  const want = collection.replace(/-/g, '').toLowerCase();
  const spellings = new Set<string>();
  for (const m of source.matchAll(/[A-Za-z_$][\w$]*/g)) {
    if (m[0].toLowerCase() === want && !RESERVED.has(m[0])) spellings.add(m[0]);
  }
  const probe = (n: string) => `typeof ${n} === "function" ? ${n} : void 0`;
  const fns = EVENTS.map((e) => `${handlerName(e)}: ${probe(handlerName(e))}`).join(', ');
  return `\n;export const __svc_forms__ = { fns: { ${fns} }, classes: [${[...spellings].map(probe).join(', ')}] };\n`;
}

interface Entry {
  /** Every file the build read or looked for (at most maxHandlerFiles), with its fingerprint then. */
  readonly inputs: ReadonlyMap<string, string>;
  readonly artifact: Artifact;
}

/** A handler whose build crashed esbuild or ran over its time: the files it had read, and their content key. */
interface Remembered {
  readonly files: readonly string[];
  readonly key: string;
  readonly error: CompileError;
}

/**
 * Handlers that ended an esbuild service, by entry file (absolute, so one app's never answers
 * for another's). Until one of the files the build had read changes content (a new mtime alone
 * is not a change), the handler fails at once without reaching esbuild again, for this app's
 * compiler and any later one of the process.
 */
const remembered = new Map<string, Remembered>();
/** Entries `remembered` keeps; the oldest goes first. Each is a few file names and a hash. */
const MAX_REMEMBERED = 10_000;

/**
 * The content key of files of the app `appDir` (absolute paths): sha256 of their names and
 * contents; undefined if one cannot be read as a file of the app within `maxBytes`.
 */
function contentKey(appDir: string, files: readonly string[], maxBytes: number): string | undefined {
  const hash = createHash('sha256');
  for (const file of [...files].sort()) {
    let contents: string;
    try {
      contents = readAppFile(appDir, relative(appDir, file), maxBytes);
    } catch (err) {
      if (err instanceof AppFileError) return undefined;
      throw err;
    }
    hash.update(`${file}\0${contents}\0`);
  }
  return hash.digest('hex');
}

/** What onResolve tells onLoad of an import: how the handler wrote it, for onLoad's errors. */
interface Specifier {
  readonly specifier: string;
}

/** The compile error of a handler (`specifier` undefined) or an import that readAppFile refused. */
function unreadText(err: AppFileError, rel: string, specifier: string | undefined): string {
  const what = specifier === undefined ? `The handler ${rel}` : `Cannot import "${specifier}": it`;
  if (err.refusal === 'outside') return `${what} is outside the app directory${specifier === undefined ? ' (a symlink?)' : ''}`;
  if (err.refusal === 'not-a-file') return `${what} is not a regular file (a named pipe?)`;
  // It says why (a link that leads to itself, EACCES), never the host's path.
  return `${what} ${err.detail}`;
}

/** The last build queued for each app directory (real path), while one is queued or running. */
const turns = new Map<string, Promise<unknown>>();

/**
 * Runs the builds of one app directory one after another, whichever `Compiler` asks (the server's
 * app, and the start-up summary's): one app holds at most one esbuild lane, so however many bad
 * handlers it has, other apps' builds find a lane (compile-lanes.ts).
 */
function inTurn<T>(appDir: string, build: () => Promise<T>): Promise<T> {
  const run = (turns.get(appDir) ?? Promise.resolve()).then(build);
  const turn = run.catch(() => {});
  turns.set(appDir, turn);
  void turn.then(() => {
    if (turns.get(appDir) === turn) turns.delete(appDir);
  });
  return run;
}

/** The limits a build is held to. */
export type CompileLimits = Pick<Limits, 'maxHandlerBytes' | 'maxHandlerFiles' | 'compileTimeoutMs'>;

/** The compiled handlers of one app directory. */
export class Compiler {
  readonly #appDir: string;
  readonly #realAppDir: string;
  readonly #limits: CompileLimits;
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Map<string, Promise<Artifact>>();

  constructor(appDir: string, limits: CompileLimits = DEFAULT_LIMITS) {
    this.#appDir = resolve(appDir);
    this.#realAppDir = realpathSync(this.#appDir);
    this.#limits = limits;
  }

  /**
   * The artifact of a handler file as it is now: cached while none of its inputs changed. A
   * request is served only while its handler file exists (server.ts), so a file gone now went
   * while the request was in flight (its tenant directory removed, say): the request finishes
   * with the handler it was admitted for, as README "Tenants" promises, when that one was built.
   */
  get(file: string): Promise<Artifact> {
    const entry = this.#entries.get(file);
    if (entry && (this.#fresh(entry) || fingerprint(file) === 'missing')) return Promise.resolve(entry.artifact);
    const pending = this.#pending.get(file);
    // A build in progress may have read the files before a change this request arrived after: once
    // it is done, its inputs are checked again (the artifact as it is if none changed).
    if (pending) return pending.then(() => this.get(file));
    const build = inTurn(this.#realAppDir, () => this.#build(file, entry?.artifact)).finally(() => this.#pending.delete(file));
    this.#pending.set(file, build);
    return build;
  }

  #fresh(entry: Entry): boolean {
    for (const [file, fp] of entry.inputs) if (fingerprint(file) !== fp) return false;
    return true;
  }

  async #build(file: string, previous: Artifact | undefined): Promise<Artifact> {
    const appDir = this.#appDir;
    const rel = relative(appDir, file).split(sep).join('/');
    const collection = basename(file, extname(file));
    const inputs = new Map<string, string>();
    const hash = createHash('sha256').update(`${COMPILER_VERSION}\0${rel}\0`);
    const sources = new Map<string, string>();
    const { maxHandlerBytes, maxHandlerFiles, compileTimeoutMs } = this.#limits;

    const known = remembered.get(file);
    if (known) {
      for (const input of known.files) inputs.set(input, fingerprint(input));
      if (contentKey(appDir, known.files, maxHandlerBytes) === known.key) {
        const artifact: Artifact = { ok: false, hash: known.key, rel, error: known.error };
        this.#entries.set(file, { inputs, artifact });
        return artifact;
      }
      remembered.delete(file);
      inputs.clear();
    }
    /** Bytes the build may still read: the entry and its imports together stay within maxHandlerBytes. */
    let budget = maxHandlerBytes;
    const overBytes = `The handler ${rel} with its imports is over ${maxHandlerBytes} bytes (the server's maxHandlerBytes limit): make it smaller`;
    const overFiles =
      `The handler ${rel} with its imports reads or looks for more than ${maxHandlerFiles} files (the server's maxHandlerFiles limit): ` +
      'import fewer files, each with its extension (`./lib/x.ts`; `./lib/x` looks for up to 8)';
    /** The error of the first of the server's bounds the build met. */
    let overBound: string | undefined;
    /**
     * Whether the build may read or look for `path`. Every request stats each input again, on the
     * event loop all apps share, so a build stops at maxHandlerFiles of them; a failed one too,
     * whose inputs are kept so that a fix is seen. Those it stopped at were all looked for because
     * of files it had read, recorded before it: until one of them changes, it would stop again.
     */
    const mayLookFor = (path: string): boolean => {
      if (inputs.has(path) || inputs.size < maxHandlerFiles) return true;
      overBound ??= overFiles;
      return false;
    };

    const guard: esbuild.Plugin = {
      name: 'svc-app-only',
      setup(build) {
        build.onResolve({ filter: /.*/ }, (args) => {
          // The handler file itself may be a link, and so may an import: onLoad reads each only as
          // a file of the app, or a tenant could run (or read, through compile errors) any file of the host.
          if (args.kind === 'entry-point') return { path: rel, namespace: NAMESPACE };
          if (!/^\.\.?\//.test(args.path)) {
            return { errors: [{ text: `Cannot import "${args.path}": a handler may import only relative files of its app (no packages, no Node built-ins)` }] };
          }
          // From the importer's place in the app, not esbuild's resolveDir: onLoad gives none (below).
          const base = resolve(appDir, dirname(args.importer), args.path);
          // By its name: `../../etc/hostname` is refused as what it is before it is looked for.
          if (!base.startsWith(appDir + sep)) return { errors: [{ text: `Cannot import "${args.path}": it is outside the app directory` }] };
          const candidates = base.endsWith('.js') ? [`${base.slice(0, -3)}.ts`, ...RESOLVE_SUFFIXES.map((s) => base + s)] : RESOLVE_SUFFIXES.map((s) => base + s);
          for (const candidate of candidates) {
            if (!mayLookFor(candidate)) return { errors: [{ text: overFiles }] };
            const st = statNow(candidate);
            inputs.set(candidate, st?.key ?? 'missing');
            if (!st?.isFile) continue;
            if (!(extname(candidate) in LOADERS)) {
              return { errors: [{ text: `Cannot import "${args.path}": only .ts, .js and .json files can be imported` }] };
            }
            const specifier: Specifier = { specifier: args.path };
            return { path: relative(appDir, candidate).split(sep).join('/'), namespace: NAMESPACE, pluginData: specifier };
          }
          return { errors: [{ text: `Cannot import "${args.path}": no such file in the app` }] };
        });
        build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
          const abs = join(appDir, args.path);
          if (!mayLookFor(abs)) return { errors: [{ text: overFiles }] };
          inputs.set(abs, fingerprint(abs)); // before reading: a change while reading is seen next time
          let read: string;
          try {
            read = readAppFile(appDir, args.path, budget);
          } catch (err) {
            if (!(err instanceof AppFileError)) throw err;
            if (err.refusal === 'too-large') {
              overBound ??= overBytes;
              return { errors: [{ text: overBytes }] };
            }
            return { errors: [{ text: unreadText(err, rel, (args.pluginData as Specifier | undefined)?.specifier) }] };
          }
          budget -= Buffer.byteLength(read);
          let contents = read;
          hash.update(`${args.path}\0${contents}\0`);
          sources.set(args.path, contents);
          if (args.path === rel) contents += formsFooter(contents, collection);
          // No resolveDir: with one, esbuild itself reads the file a `//# sourceMappingURL=` comment
          // names, relative to it or absolute (/etc/passwd, a FIFO, /dev/zero), past this plugin and
          // readAppFile, and shows its first token in the compile error.
          return { contents, loader: LOADERS[extname(abs)] ?? 'js' };
        });
      },
    };

    let artifact: Artifact;
    try {
      const built = await inLane(compileTimeoutMs, async (esbuild) => {
        const result = await esbuild.build({
          entryPoints: [file],
          absWorkingDir: appDir,
          bundle: true,
          write: false,
          // ESM, whose one closing `export { … }` becomes the function's `return { … }`: cheaper to
          // run on every request than the getters of an IIFE's CommonJS-style namespace.
          format: 'esm',
          supported: { 'top-level-await': false },
          platform: 'neutral',
          target: 'es2024',
          sourcemap: 'external',
          sourcesContent: false,
          outfile: join(appDir, '__svc_handler.js'),
          plugins: [guard],
          logLevel: 'silent',
          // Imports stay as written, used or not: an unused `import fs from 'node:fs'` is refused
          // like a used one instead of being dropped before the guard sees it.
          tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
          mainFields: [],
          conditions: [],
          charset: 'utf8',
          legalComments: 'none',
        });
        const delegateOnly = sources.size === 1 && (await isDelegateOnly(esbuild, sources.get(rel)!, LOADERS[extname(file)] ?? 'js'));
        return { result, delegateOnly };
      });
      const { result } = built;
      const digest = hash.digest('hex');
      if (previous?.ok && previous.hash === digest) {
        artifact = previous;
      } else {
        // A hashbang, which a module may start with, stays on the bundle's first line: in the
        // function the bundle becomes it would be a syntax error, so it becomes a comment.
        const js = withoutRequireShim(result.outputFiles.find((f) => f.path.endsWith('.js'))!.text.replace(/\/\/# sourceMappingURL=.*\s*$/, '')).replace(/^#!/, '//');
        const map = result.outputFiles.find((f) => f.path.endsWith('.map'))!.text;
        artifact = {
          ok: true,
          hash: digest,
          rel,
          // The prefix stays on the bundle's first line, so line numbers match the source map.
          code: `(function () { "use strict"; ${exportsToReturn(js)}\n})`,
          scriptName: SCRIPT_PREFIX + rel,
          delegateOnly: built.delegateOnly,
          // Read from the bundle, not the entry's source: the event functions or the class may come
          // from an imported file (README "The three forms"), and the bundle holds the code the entry
          // reaches, without comments.
          events: declaredEvents(js),
          map: new SourceMap(JSON.parse(map)),
        };
        const refused = await v8Refusal(artifact);
        if (refused) artifact = { ok: false, hash: digest, rel, error: refused };
      }
    } catch (err) {
      if (err instanceof CompilerDied || err instanceof CompileTimeout) {
        artifact = this.#remember(file, rel, sources, err);
      } else {
        // Over the bound, the error is the bound's alone: clients see it in any mode, and esbuild's
        // first error may be another file's (`Expected ";" but found "…"`), which holds source.
        const error: CompileError = overBound !== undefined ? { text: overBound, bound: true } : this.#describe(err, rel, sources.get(rel));
        artifact = { ok: false, hash: hash.digest('hex'), rel, error };
      }
    }
    this.#entries.set(file, { inputs, artifact });
    return artifact;
  }

  /**
   * A build that crashed esbuild or ran over its time: its lane has been restarted, and the
   * handler is remembered as failing by the content of the files it had read, so that it does not
   * fire again on every request (nor after the lane's restart) until it changes.
   */
  #remember(file: string, rel: string, sources: ReadonlyMap<string, string>, err: CompilerDied | CompileTimeout): Artifact {
    const files = [...sources.keys()].map((path) => join(this.#appDir, path));
    if (!files.includes(file)) files.push(file);
    const text =
      err instanceof CompileTimeout
        ? `The handler ${rel} took longer than ${this.#limits.compileTimeoutMs} ms to compile (the server's compileTimeoutMs limit): simplify it (deep nesting?)`
        : `The handler ${rel} crashed the compiler (${err.message.replace(/^The service was stopped:?\s*/, '') || 'esbuild stopped'}): simplify it (deep nesting?)`;
    const error: CompileError = { text, bound: true };
    const key = contentKey(this.#appDir, files, this.#limits.maxHandlerBytes) ?? 'unreadable';
    remembered.delete(file);
    remembered.set(file, { files, key, error });
    if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
    return { ok: false, hash: key, rel, error };
  }

  #describe(err: unknown, rel: string, entrySource: string | undefined): CompileError {
    const failure = err as Partial<esbuild.BuildFailure>;
    const first = failure.errors?.[0];
    const scrub = (s: string) => s.split(this.#realAppDir + sep).join('').split(this.#appDir + sep).join('');
    if (!first) return { text: scrub(String((err as Error)?.message ?? err)) };
    const more = failure.errors!.length > 1 ? ` (and ${failure.errors!.length - 1} more)` : '';
    const loc = first.location;
    const file = loc?.file.replace(/^svc:/, '');
    if (loc && file === rel && entrySource !== undefined) {
      // An error in the code appended to the entry means the entry itself ended too early.
      const lines = entrySource.split('\n');
      if (loc.line > lines.length || (loc.line === lines.length && loc.column >= lines.at(-1)!.length)) {
        return { text: 'Unexpected end of file (an unclosed bracket, string or comment?)' + more, location: `${rel}:${lines.length}:${lines.at(-1)!.length + 1}` };
      }
    }
    return { text: scrub(first.text) + more, ...(loc && file ? { location: `${scrub(file)}:${loc.line}:${loc.column + 1}` } : {}) };
  }
}

/**
 * The events the bundle `js` shows it serves, for documents (OpenAPI, CORS preflights), not for
 * dispatch, and never fewer than dispatch finds (runtime/prelude.js); undefined when it shows none
 * (a top-level script serves every event):
 * - `on<Event>` functions it declares (`function onList(`), assigns (`const onList = …`) or exports
 *   under that name (a function re-exported from another file is renamed in the bundle, `onList2 as
 *   onList`). A call (`hooks.onList()`) or an object literal's method is no event function.
 * - When its modules define a class: every event whose name, with or without `on`, is a word of
 *   their text in any case, as a class's methods match (`create`, `ONCREATE`, `onCreate`).
 */
function declaredEvents(js: string): readonly EventName[] | undefined {
  const start = js.search(new RegExp(`^// ${NAMESPACE}:`, 'm'));
  // The modules' own text: without esbuild's helpers before them, nor the line of formsFooter,
  // which names every event function.
  const modules = (start === -1 ? js : js.slice(start)).replace(/^.*\b__svc_forms__\s*=.*$/m, '');
  const classes = /\bclass\b/.test(modules);
  const exported = new Set(exportedNames(js));
  const found = EVENTS.filter(
    (e) =>
      exported.has(handlerName(e)) ||
      new RegExp(`(?:\\bfunction\\s*\\*?\\s*${handlerName(e)}\\s*\\(|(?<![.\\w$])${handlerName(e)}\\s*=(?![=>]))`).test(js) ||
      (classes && new RegExp(`(?<![\\w$])(?:on)?${e}(?![\\w$])`, 'i').test(modules)),
  );
  return found.length > 0 ? found : undefined;
}

/** The names the bundle's closing `export { a as b, c };` exports (`b`, `c`). */
function exportedNames(js: string): string[] {
  const m = /\nexport \{([^}]*)\};?\s*$/.exec(js);
  return m ? m[1]!.split(',').map((part) => part.trim().split(/\s+as\s+/).at(-1)!).filter(Boolean) : [];
}

/**
 * No CommonJS in a handler: every `require('x')` was resolved (and refused) as an import, and
 * what is left of esbuild's `__require` shim would only make `typeof require` say 'function'.
 * The shim becomes `undefined`, on as many lines (the source map's lines stay right). It is one of
 * esbuild's helpers, which come before the first module's code (its `// svc:<path>` comment), and
 * is looked for there only: a template literal of the handler's may hold the same lines, which
 * became `undefined` too, and were each searched to the end of the bundle (100 ms of the event
 * loop for 250 KB of them).
 */
function withoutRequireShim(js: string): string {
  const modules = js.search(new RegExp(`^// ${NAMESPACE}:`, 'm'));
  const helpers = modules === -1 ? js : js.slice(0, modules);
  const shimless = helpers.replace(/^var __require = \/\* @__PURE__ \*\/ \(\(x\) =>[\s\S]*?\n\}\);\n/m, (shim) => 'var __require = void 0;' + '\n'.repeat(shim.split('\n').length - 1));
  return shimless + js.slice(helpers.length);
}

/** Replaces the bundle's closing `export { a as b, c };` with `return { "b": a, "c": c };`. */
function exportsToReturn(js: string): string {
  const m = /\nexport \{([^}]*)\};?\s*$/.exec(js);
  if (!m) return `${js}\nreturn {};`;
  const fields = m[1]!
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [local, exported = local] = part.split(/\s+as\s+/) as [string, string?];
      return `${JSON.stringify(exported)}: ${local}`;
    });
  return `${js.slice(0, m.index)}\nreturn { ${fields.join(', ')} };`;
}

/** True for a script whose whole code is `svc.delegate()` or `svc_delegate()` (comments aside). */
async function isDelegateOnly(esbuild: LaneEsbuild, source: string, loader: esbuild.Loader): Promise<boolean> {
  if (source.length > 4096 || !/delegate/.test(source)) return false;
  try {
    const { code } = await esbuild.transform(source, { loader, minify: true, tsconfigRaw: '{}', logLevel: 'silent' });
    return /^(?:svc\.delegate|svc_delegate)\(\);?\s*$/.test(code);
  } catch (err) {
    if (err instanceof CompilerDied) throw err;
    return false;
  }
}

/**
 * V8's early error in a bundle esbuild accepted (`import.meta` outside a module, a regular
 * expression V8 refuses, `/a{2,1}/`), at its place in the source: the isolate would refuse it
 * on every request, and `svc check` must say so as serve does. Only parsed, never run, in a
 * worker thread (v8-parse.ts: a parse can take seconds).
 */
async function v8Refusal(artifact: Extract<Artifact, { ok: true }>): Promise<CompileError | undefined> {
  const err = await parseInWorker(artifact.code, artifact.scriptName);
  if (err === undefined) return undefined;
  // A SyntaxError only: a RangeError (the parser ran out of the thread's stack, which is smaller
  // than an isolate's) says nothing of what the isolate accepts, and is left to it.
  if (!err.syntax || /call stack/i.test(err.message)) return undefined;
  const text = err.message;
  // `svc-handler:resources/x.ts:3\n<the line>\n   ^^^` on top of the stack.
  const m = /^.*:(\d+)\n.*\n( *)\^/.exec(err.stack);
  if (!m) return { text };
  const entry = artifact.map.findEntry(Number(m[1]) - 1, m[2]!.length) as { originalSource?: string; originalLine?: number; originalColumn?: number };
  if (entry.originalSource === undefined || entry.originalLine === undefined) return { text };
  return { text, location: `${entry.originalSource.replace(/^svc:/, '')}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}` };
}

/** `resources/x.ts:12` of the first stack frame in the handler's own code, through the source map. */
/**
 * The 500 `handler-compile-error` of a request whose handler does not compile (logged with the
 * error; the client sees it only in development mode, else where to look, unless it is about
 * one of the server's bounds, which holds no source).
 */
export function compileError(ex: Pick<Exchange, 'log' | 'dev'>, rel: string, text: string, location?: string, bound?: boolean): SvcError {
  const where = location ?? rel;
  ex.log.warn(`${where}: ${text}`);
  if (bound && !ex.dev) return new SvcError('handler-compile-error', text);
  return new SvcError('handler-compile-error', ex.dev ? `${where}: ${text}` : `The handler ${rel} does not compile; run \`svc check\` or use development mode for the error.`);
}

export function locate(artifact: Artifact, stack: string | undefined): string | undefined {
  if (!artifact.ok || !stack) return undefined;
  const name = artifact.scriptName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`${name}:(\\d+):(\\d+)`).exec(stack);
  if (!m) return undefined;
  const entry = artifact.map.findEntry(Number(m[1]) - 1, Number(m[2]) - 1) as { originalSource?: string; originalLine?: number };
  if (entry.originalSource === undefined || entry.originalLine === undefined) return undefined;
  return `${entry.originalSource.replace(/^svc:/, '')}:${entry.originalLine + 1}`;
}

export { warmUp } from './compile-lanes.ts';
