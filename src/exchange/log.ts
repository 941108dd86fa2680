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

  constructor(sink: LogSink, fields: Readonly<Record<string, unknown>> = {}) {
    this.#sink = sink;
    this.fields = fields;
  }

  child(fields: Readonly<Record<string, unknown>>): Logger {
    return new Logger(this.#sink, { ...this.fields, ...fields });
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

/**
 * Records as text lines: `svc: [<tenant or app>/<collection> <event>] <msg>` when the record is
 * about a request's collection, else `svc: <msg>`.
 */
export function textLine({ msg, fields }: LogRecord): string {
  if (typeof fields.collection !== 'string') return `svc: ${msg}`;
  const tenant = typeof fields.tenant === 'string' && fields.tenant !== '' ? fields.tenant : 'app';
  return `svc: [${tenant}/${fields.collection}${typeof fields.event === 'string' ? ` ${fields.event}` : ''}] ${msg}`;
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
  const line: Record<string, unknown> = { time: new Date().toISOString(), level, msg };
  for (const [k, v] of Object.entries(fields)) if (!(k in line)) line[k] = v;
  return JSON.stringify(line);
}

/**
 * Lines for standard error, written together at the end of the event loop's turn: one system
 * call for every record of the turn instead of one each (writes to a pipe or file are synchronous
 * in Node). Lines still pending when the process exits are written then.
 */
function stderrLines(): (line: string) => void {
  return (toStderr ??= bufferedStderr());
}
let toStderr: ((line: string) => void) | undefined;

function bufferedStderr(): (line: string) => void {
  let pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    process.stderr.write(text);
  };
  process.on('exit', flush);
  return (line) => {
    pending.push(line + '\n');
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
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
