// The one log of the server: records with fields, written to the sink that start-up wires.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogRecord {
  readonly level: LogLevel;
  readonly msg: string;
  /** Who the record is about: `tenant`, `collection`, `event`, `requestId`, … */
  readonly fields: Readonly<Record<string, unknown>>;
}

export type LogSink = (record: LogRecord) => void;

/** A logger bound to fields (a request's id, tenant, collection and event); children add more. */
export class Logger {
  readonly #sink: LogSink;
  readonly fields: Readonly<Record<string, unknown>>;
  /** The lowest level the sink writes (`--log-level`): a record below it need not be built. */
  readonly level: LogLevel;

  constructor(sink: LogSink, fields: Readonly<Record<string, unknown>> = {}, level: LogLevel = 'debug') {
    this.#sink = sink;
    this.fields = fields;
    this.level = level;
  }

  child(fields: Readonly<Record<string, unknown>>): Logger {
    return new Logger(this.#sink, { ...this.fields, ...fields }, this.level);
  }

  /** Whether a record at `level` is written (the request log's line is built only then). */
  enabled(level: LogLevel): boolean {
    return LEVELS[level] >= LEVELS[this.level];
  }

  debug(msg: string): void {
    this.#sink({ level: 'debug', msg, fields: this.fields });
  }
  info(msg: string): void {
    this.#sink({ level: 'info', msg, fields: this.fields });
  }
  warn(msg: string): void {
    this.#sink({ level: 'warn', msg, fields: this.fields });
  }
  error(msg: string): void {
    this.#sink({ level: 'error', msg, fields: this.fields });
  }
}

/** Characters that end a line, or that log tools may read as such (C0 and C1 controls, DEL, U+2028/9). */
const LINE_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * `text` on one line: each control character written as its JSON escape (`\n`, `\u0085`), so that
 * a record is one line whatever a handler put in a message (an error's, a console line) and no
 * text can pass for a record of its own, another tenant's.
 */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKING, (c) => {
    const json = JSON.stringify(c);
    return json.length > 3 ? json.slice(1, -1) : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * Records as text lines: `svc: [<tenant or app>/<collection> <event>] <msg>` when the record is
 * about a request's collection, else `svc: <msg>`; the message on one line (oneLine).
 */
export function textLine({ msg, fields }: LogRecord): string {
  const text = oneLine(msg);
  if (typeof fields.collection !== 'string') return `svc: ${text}`;
  const tenant = typeof fields.tenant === 'string' && fields.tenant !== '' ? fields.tenant : 'app';
  return `svc: [${tenant}/${fields.collection}${typeof fields.event === 'string' ? ` ${fields.event}` : ''}] ${text}`;
}

/** A sink writing text lines, by default to standard error. */
export function textSink(write: (line: string) => void = (line) => console.error(line)): LogSink {
  return (record) => write(textLine(record));
}

const LEVELS: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };
export const LOG_LEVELS = Object.keys(LEVELS) as LogLevel[];
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * Records as JSON lines: `{"time","level","msg",…fields}` (fields never overwrite the first
 * three). One line per record, so that a log shipper can read them without a parser of ours.
 */
export function jsonLine({ level, msg, fields }: LogRecord): string {
  const time = isoNow();
  // One literal and one stringify: V8's fast path for a plain object (a line per request is the
  // request log's whole cost); a field named like the first three is dropped, not spread over them.
  if (!('time' in fields || 'level' in fields || 'msg' in fields)) return JSON.stringify({ time, level, msg, ...fields });
  const line: Record<string, unknown> = { time, level, msg };
  for (const [k, v] of Object.entries(fields)) if (!(k in line)) line[k] = v;
  return JSON.stringify(line);
}

let isoMs = NaN;
let isoText = '';
/** `new Date().toISOString()`, formatted once per millisecond (a busy server logs several lines in one). */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

/**
 * Lines for standard error, written together: at most FLUSH_MS after the first of them, or at once
 * when FLUSH_BYTES are pending. Writes to a pipe or file are synchronous in Node, and one system
 * call per event-loop turn cost a busy server about 8 µs per request with the request log on; one
 * per FLUSH_MS costs nothing measurable. Lines still pending when the process exits are written then
 * (a crash that skips 'exit', such as SIGKILL, loses at most FLUSH_MS of them).
 */
function stderrLines(): (line: string) => void {
  return (toStderr ??= bufferedStderr());
}
let toStderr: ((line: string) => void) | undefined;

/** How long a line may wait for the lines after it. */
const FLUSH_MS = 20;
/** Pending characters that are written at once. */
const FLUSH_BYTES = 64 * 1024;

function bufferedStderr(): (line: string) => void {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === '') return;
    const text = pending;
    pending = '';
    process.stderr.write(text);
  };
  process.on('exit', flush);
  return (line) => {
    pending += line + '\n';
    if (pending.length >= FLUSH_BYTES) flush();
    // Unreferenced: a server with nothing else to do exits, writing the lines on 'exit'.
    else timer ??= setTimeout(flush, FLUSH_MS).unref();
  };
}

/** The sink `--log-format` and `--log-level` ask for, writing to standard error. */
export function logSink(format: LogFormat, minLevel: LogLevel = 'info', write: (line: string) => void = stderrLines()): LogSink {
  const min = LEVELS[minLevel];
  const render = format === 'json' ? jsonLine : textLine;
  return (record) => {
    if (LEVELS[record.level] >= min) write(render(record));
  };
}

/** The server's logger for `--log-format` and `--log-level`: its sink writes that level and above, and it builds no record below it. */
export function serverLogger(format: LogFormat, level: LogLevel): Logger {
  return new Logger(logSink(format, level), {}, level);
}
