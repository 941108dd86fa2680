// Reading an app's `svc.json`: the published JSON Schema (runtime/svc-settings.schema.json, ajv),
// then limits capped by the server's. A bad file is an error naming the file and what to fix.

import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { SvcError } from '../errors.ts';
import type { FetchPrivate } from '../exchange/fetch-private.ts';
import type { Limits } from '../exchange/limits.ts';
import type { AppSettings } from '../exchange/settings.ts';
import { AppFileError, readAppFile } from '../model/app-file.ts';
import { JsonTextError } from '../model/json-text.ts';
import { parseJsonFile } from '../model/load.ts';

const SCHEMA = JSON.parse(readFileSync(new URL('../../runtime/svc-settings.schema.json', import.meta.url), 'utf8'));
const validate = new Ajv({ allErrors: true, strict: true }).compile(SCHEMA);

/**
 * Bytes of svc.json the server reads, 1 MiB: a few origins, limits and env values take a few KiB,
 * and the file is read and checked on the event loop, when a tenant opens. Over it the app is
 * app-settings-invalid.
 */
export const MAX_SETTINGS_BYTES = 1024 * 1024;

/** Limits an app may lower in its settings. */
const APP_LIMITS = ['cpuLimitMs', 'memoryLimitMiB', 'maxOutputBytes', 'maxIsolates', 'modelLimitMs', 'fetchCount', 'fetchTimeoutMs', 'fetchMaxBytes', 'maxResultBytes'] as const;

interface SettingsFile {
  fetch?: { allow?: string[] };
  env?: Record<string, string>;
  limits?: Partial<Record<(typeof APP_LIMITS)[number], number>>;
}

/**
 * The settings of the app in `dir`: its `svc.json`, or none (no fetch, no env, the server's
 * limits); `fetchPrivate` is the server's, whatever the file says.
 */
export function loadSettings(dir: string, server: Limits, fetchPrivate: FetchPrivate): AppSettings {
  let text: string;
  try {
    text = readAppFile(dir, 'svc.json', MAX_SETTINGS_BYTES);
  } catch (err) {
    if (!(err instanceof AppFileError)) throw err;
    if (err.refusal === 'missing') return { env: new Map(), fetchAllow: [], fetchPrivate, limits: server };
    throw new SvcError('app-settings-invalid', `${err.message}.`);
  }
  let file: SettingsFile;
  try {
    file = parseJsonFile(text) as SettingsFile;
  } catch (err) {
    throw new SvcError('app-settings-invalid', syntaxProblem(err));
  }
  if (!validate(file)) {
    // Messages name where and what, never a value: env values are secrets.
    const problems = validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message}${e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : ''}`).join('; ');
    throw new SvcError('app-settings-invalid', `svc.json does not match runtime/svc-settings.schema.json: ${problems}`);
  }
  const limits: Record<string, number> = { ...server };
  for (const name of APP_LIMITS) {
    const asked = file.limits?.[name];
    if (asked !== undefined) limits[name] = Math.min(asked, server[name]);
  }
  if (file.limits?.cpuLimitMs !== undefined && file.limits.cpuLimitMs < server.cpuLimitMs) {
    limits.wallLimitMs = Math.min(server.wallLimitMs, Math.max(1000, 10 * limits.cpuLimitMs!));
  }
  // The schema's pattern lets through what is no URL (a port past 65535, an IPv4 address of five parts).
  const fetchAllow = (file.fetch?.allow ?? []).map((o, i) => {
    if (!URL.canParse(o)) throw new SvcError('app-settings-invalid', `svc.json: /fetch/allow/${i} is not a URL: write an origin, scheme://host[:port] with a port up to 65535.`);
    return new URL(o).origin;
  });
  return {
    env: new Map(Object.entries(file.env ?? {})),
    fetchAllow,
    fetchPrivate,
    limits: limits as unknown as Limits,
  };
}

/**
 * What is wrong with svc.json's text (a JsonTextError from parseJsonFile), as a problem's detail:
 * where, never what is there (JSON.parse's message quotes the text, and env values are secrets).
 * A path is a JSON Pointer, as the schema's messages write one. A repeated name is refused because
 * the last would win without a word: a second `cpuLimitMs` could undo the first, a second env name
 * replace a value.
 */
function syntaxProblem(err: unknown): string {
  const fault = err instanceof JsonTextError ? err.fault : undefined;
  if (fault?.kind === 'depth') return `svc.json is nested deeper than ${fault.max} levels: give it the shape of runtime/svc-settings.schema.json.`;
  if (fault?.kind === 'repeated-name') {
    const cut = (k: string | number) => (typeof k === 'string' && k.length > 60 ? `${k.slice(0, 60)}…` : String(k));
    // RFC 6901: `~` and `/` in a name are written `~0` and `~1`.
    const pointer = `/${fault.path.map((k) => cut(k).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
    const key = fault.name === undefined ? 'a key' : `the key ${JSON.stringify(cut(fault.name))}`;
    return `svc.json: ${pointer}: ${key} appears more than once${fault.at === undefined ? '' : ` (at character ${fault.at})`}: write each key once.`;
  }
  return `svc.json is not valid JSON${fault?.kind === 'syntax' && fault.at !== undefined ? ` (at character ${fault.at})` : ''}: fix its syntax.`;
}
