// `svc check --types`: handler scripts type-checked by TypeScript against runtime/svc.d.ts, as the isolate sees them.
//
// The options are svc's, not the app's tsconfig: a handler runs in an isolate with the ES2024
// built-ins and svc's globals only (no Node, no DOM), so that is all it is checked against.
// TypeScript is loaded only here, when asked for: `svc serve` never loads it.

import { realpathSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import type TS from 'typescript';
import { DEFAULT_LIMITS } from '../exchange/limits.ts';
import { AppFileError, readAppFile } from '../model/app-file.ts';

/** The globals of a handler script (README "Handlers"). */
export const SVC_TYPES = new URL('../../runtime/svc.d.ts', import.meta.url).pathname;

/** TypeScript could not be loaded: `svc check --types` cannot run. */
export class TypeScriptMissing extends Error {}

/** The `typescript` package, or TypeScriptMissing saying what to do. */
export async function loadTypeScript(): Promise<typeof TS> {
  try {
    // A CommonJS package: its exports are the default export of the ES module.
    return (await import('typescript')).default;
  } catch (e) {
    const reason = (e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' ? 'the typescript package is not installed' : `TypeScript could not be loaded (${(e as Error).message})`;
    throw new TypeScriptMissing(`svc check --types needs TypeScript, and ${reason}: install svc's dependencies with npm ci (typescript is one of them), or run svc check without --types`);
  }
}

/** The compiler options of app/tsconfig.json, plus what the bundler accepts in a handler's imports. */
function options(ts: typeof TS): TS.CompilerOptions {
  return {
    target: ts.ScriptTarget.ES2024,
    lib: ['lib.es2024.d.ts'],
    types: [],
    module: ts.ModuleKind.Preserve,
    // A handler is an ES module however it is written (README "Handlers"), a top-level script
    // without import or export too: checked as a script, such handlers shared one global scope, so
    // two that each declared `const order` were "Cannot redeclare", and one could use another's.
    moduleDetection: ts.ModuleDetectionKind.Force,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    // A handler may import `./helper.ts` and plain `.js` files of its app; the .js ones are not checked.
    allowImportingTsExtensions: true,
    allowJs: true,
    checkJs: false,
    strict: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true,
  };
}

/**
 * Type errors of the handler scripts `files` (absolute paths; `.ts` ones are checked, with what
 * they import), one per error: `resources/<name>.ts:<line>:<column>: error TS<code>: <message>`,
 * paths relative to `appDir`. Throws TypeScriptMissing when TypeScript is not installed.
 */
export async function typeErrors(appDir: string, files: readonly string[], ts?: typeof TS): Promise<string[]> {
  ts ??= await loadTypeScript();
  const roots = files.filter((f) => f.endsWith('.ts'));
  if (roots.length === 0) return [];
  const opts = options(ts);
  const program = ts.createProgram({ rootNames: [...roots, SVC_TYPES], options: opts, host: appHost(ts, opts, appDir) });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = `error TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n  ')}`;
    if (!d.file || d.start === undefined) return message;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    const rel = relative(appDir, d.file.fileName);
    const name = rel.startsWith('..') ? d.file.fileName : rel.split(sep).join('/');
    return `${name}:${line + 1}:${character + 1}: ${message}`;
  });
}

/**
 * A compiler host that reads the app's files only as files of the app (readAppFile: inside the
 * app directory, regular files, bounded), and outside it TypeScript's own lib files and
 * runtime/svc.d.ts. Without it `/// <reference path>`, `import type` and `typeof import()`, which
 * esbuild drops without resolving, made TypeScript read any file of the host (another tenant's
 * sources, their types and literal values printed as errors; a FIFO that never ends the check).
 */
function appHost(ts: typeof TS, opts: TS.CompilerOptions, dir: string): TS.CompilerHost {
  const appDir = resolve(dir);
  const host = ts.createCompilerHost(opts);
  const real = realpathSync(appDir);
  const inApp = (file: string) => file.startsWith(appDir + sep) || file.startsWith(real + sep);
  const libDir = dirname(ts.getDefaultLibFilePath(opts)) + sep;
  const svcTypes = realpathSync(SVC_TYPES);
  const trusted = (file: string) => file.startsWith(libDir) || file === SVC_TYPES || file === svcTypes;
  const { readFile, fileExists } = host;
  const readInApp = (file: string): string | undefined => {
    try {
      return readAppFile(appDir, relative(appDir, file), DEFAULT_LIMITS.maxHandlerBytes);
    } catch (err) {
      if (err instanceof AppFileError) return undefined;
      throw err;
    }
  };
  host.readFile = (file) => (trusted(file) ? readFile.call(host, file) : inApp(file) ? readInApp(file) : undefined);
  host.fileExists = (file) => (trusted(file) ? fileExists.call(host, file) : inApp(file) && readInApp(file) !== undefined);
  return host;
}
