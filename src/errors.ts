// The error catalogue: every error the server produces, with its stable code, status and title.
// Codes are never reused; a retired code stays here, marked retired. The README reproduces this
// table (test/unit/readme.test.ts keeps the two in step; `node scripts/sync-readme.ts` rewrites it).

import { STATUS_CODES } from 'node:http';

export interface CatalogueEntry {
  readonly status: number;
  readonly title: string;
  /** What the user should do about it; shown in the README's error catalogue. */
  readonly fix: string;
}

export const CATALOGUE = {
  // 400: the request is wrong
  'invalid-json': { status: 400, title: 'Bad Request', fix: 'Send a well-formed JSON object, in UTF-8, as the body.' },
  'invalid-atom': { status: 400, title: 'Bad Request', fix: 'Send one well-formed Atom entry in UTF-8 (no feed, DOCTYPE or entities beyond the five predefined ones).' },
  'invalid-member': { status: 400, title: 'Bad Request', fix: 'Correct the fields listed in `errors`: unknown fields, wrong types, over-long strings, malformed dates, missing required fields.' },
  'invalid-query': { status: 400, title: 'Bad Request', fix: 'Correct the query parameters listed in `errors`.' },
  'invalid-header': { status: 400, title: 'Bad Request', fix: 'Correct the request header named in `detail`.' },
  'malformed-request': { status: 400, title: 'Bad Request', fix: 'Send well-formed HTTP/1.1: the request line, a header line or the chunked body could not be parsed (`detail` says what the parser found).' },
  // 404 / 405 / 406 / 408 / 412 / 413 / 414 / 415 / 431
  'not-found': { status: 404, title: 'Not Found', fix: 'Check the URL: /resources/<collection>[/<id>[/<path info>]], no trailing slash.' },
  'collection-not-found': { status: 404, title: 'Not Found', fix: 'Add models/<collection>.json and resources/<collection>.ts to the app, or check the spelling.' },
  'member-not-found': { status: 404, title: 'Not Found', fix: 'Use the id of an existing member (ids are positive integers).' },
  'type-not-found': { status: 404, title: 'Not Found', fix: 'GET /resources/types lists the types that exist.' },
  'tenant-not-found': { status: 404, title: 'Not Found', fix: 'Check the first label of the Host header: it names the tenant.' },
  'method-not-allowed': { status: 405, title: 'Method Not Allowed', fix: 'Use one of the methods in the Allow header.' },
  'not-acceptable': { status: 406, title: 'Not Acceptable', fix: 'Accept application/json or application/atom+xml, or pass format_as=json|atom.' },
  'request-timeout': { status: 408, title: 'Request Timeout', fix: 'Send the whole request, headers and body, within --request-timeout (30 s by default); the connection is closed.' },
  'precondition-failed': { status: 412, title: 'Precondition Failed', fix: 'The member changed since you read it: GET it again and retry with the new ETag.' },
  'body-too-large': { status: 413, title: 'Content Too Large', fix: 'Send a smaller body, or raise --max-body on the server.' },
  'uri-too-long': { status: 414, title: 'URI Too Long', fix: 'Shorten the URL (query string included), or raise --max-url on the server.' },
  'unsupported-media-type': { status: 415, title: 'Unsupported Media Type', fix: 'Send Content-Type application/json or application/atom+xml, with no charset other than utf-8, and the body uncompressed (no Content-Encoding).' },
  'expectation-failed': { status: 417, title: 'Expectation Failed', fix: 'Send no Expect header, or `Expect: 100-continue` (the only expectation the server meets).' },
  'headers-too-large': { status: 431, title: 'Request Header Fields Too Large', fix: 'Send a request line and headers of at most 16 KiB together (more when --max-url is raised past 8 KiB: see Limits); the connection is closed.' },
  // 5xx: the server or the handler
  'internal-error': { status: 500, title: 'Internal Server Error', fix: 'A bug in the server, or a write whose outcome the store did not report (its detail says so: read before writing again); the log has the details.' },
  'app-settings-invalid': { status: 500, title: 'Internal Server Error', fix: 'Fix the app\'s svc.json as `detail` says (its JSON Schema is runtime/svc-settings.schema.json).' },
  'model-invalid': { status: 500, title: 'Internal Server Error', fix: 'Fix the model file named in `detail` (run `svc check`).' },
  'models-over-limit': { status: 500, title: 'Internal Server Error', fix: 'The app has more model files, or its models describe more, than one document of type metadata or OpenAPI may hold (README "Limits"): remove what `detail` says (model files, fields, long labels and descriptions).' },
  'handler-compile-error': { status: 500, title: 'Internal Server Error', fix: 'Fix the handler script so that it compiles (run `svc check`).' },
  'handler-error': { status: 500, title: 'Internal Server Error', fix: 'The handler threw: fix the handler script (development mode shows the message and line).' },
  'transfer-coding-not-implemented': { status: 501, title: 'Not Implemented', fix: 'Send the body with Content-Length, or with Transfer-Encoding: chunked alone (no gzip or other transfer coding); the connection is closed.' },
  'handler-cpu-limit': { status: 503, title: 'Service Unavailable', fix: 'The handler used more CPU time than allowed: make it do less per request, or raise --cpu-limit.' },
  'handler-time-limit': { status: 503, title: 'Service Unavailable', fix: 'The handler ran too long without using CPU (or kept the request busy for over 30 s): make it finish sooner.' },
  'handler-memory-limit': { status: 503, title: 'Service Unavailable', fix: 'The handler used more memory than the isolate allows: make it hold less, or raise --memory-limit.' },
  'handler-output-limit': { status: 503, title: 'Service Unavailable', fix: 'The handler wrote more than the response size cap: write less, or raise --max-output.' },
  'handler-reported': { status: 500, title: 'Internal Server Error', fix: 'Rendered by a handler through the `error` view; the status and detail are the handler\'s own.' },
  'sandbox-unavailable': { status: 503, title: 'Service Unavailable', fix: 'No handler isolate could take the request (the sandbox is restarting); retry shortly.' },
  'tenant-busy': { status: 503, title: 'Service Unavailable', fix: 'This app has as many requests in progress as the server allows one app (--tenant-concurrency); retry after the Retry-After seconds.' },
  'not-ready': { status: 503, title: 'Service Unavailable', fix: 'The server is starting or cannot reach its store (see `detail`); /readyz turns 200 when it can serve.' },
  'store-time-limit': { status: 503, title: 'Service Unavailable', fix: 'The query made the store work longer than one query may (5 s by default): narrow it with a condition that reads an index (exact, in, startswith, a range) rather than contains, endswith, the case-insensitive conditions, month or day, and page it with count.' },
  'store-full': { status: 507, title: 'Insufficient Storage', fix: 'The data store has no room left for the write (its disk is full); nothing of it was stored: the operator must free space, then the write can be sent again.' },
  'store-unavailable': { status: 503, title: 'Service Unavailable', fix: 'The data store could not be reached, or was too busy to answer in time: retry after the seconds in Retry-After.' },
  'model-changed': { status: 503, title: 'Service Unavailable', fix: 'The collection\'s model file changed while the request was in progress, and the stored collection follows the file as it is now: send the request again (it is then read with the new model).' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof CATALOGUE;

/** One offending field or query parameter of a validation error (RFC 9457 extension member). */
export type FieldError = { field: string; message: string } | { parameter: string; message: string };

/** The most field errors one problem lists: a body of 80,000 unknown fields must not make a 7 MB problem. */
export const MAX_LISTED_ERRORS = 100;

/**
 * A validation error: `title` (e.g. `Invalid member`) with the first MAX_LISTED_ERRORS errors in the
 * detail and in `errors`, and how many more there are.
 */
export function validationError(code: ErrorCode, title: string, errors: readonly FieldError[]): SvcError {
  const listed = errors.slice(0, MAX_LISTED_ERRORS);
  const more = errors.length - listed.length;
  const parts = listed.map((e) => `${'field' in e ? e.field : e.parameter} ${e.message}`);
  const detail = `${title}: ${parts.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
  return new SvcError(code, detail, { errors: listed });
}

export interface Problem {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
}

/**
 * A problem's JSON body, with the request id in it too, so that a user reporting a problem quotes
 * the log's key: the server's problems and a handler's error view alike.
 */
export function problemBody(problem: Problem, requestId: string | undefined): string {
  return JSON.stringify(requestId === undefined ? problem : { ...problem, requestId });
}

/** The one error class of the server: it knows its code and renders itself as a problem. */
export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  /** Extra response headers, e.g. `Allow` for 405. */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, detail: string, opts: { errors?: FieldError[]; headers?: Record<string, string>; status?: number } = {}) {
    super(detail);
    this.name = 'SvcError';
    this.code = code;
    this.status = opts.status ?? CATALOGUE[code].status;
    this.errors = opts.errors;
    this.headers = opts.headers;
  }

  toProblem(): Problem {
    const problem: Problem = {
      type: 'about:blank',
      title: CATALOGUE[this.code].title,
      status: this.status,
      detail: this.message,
      code: this.code,
    };
    if (this.errors?.length) problem.errors = this.errors;
    return problem;
  }
}

/**
 * The title of a problem a handler renders with `status` (README "Responses": "the status's
 * title"): its reason phrase, as the status line says it (RFC 9457 §4.2.1: with `about:blank`, the
 * title is the status's phrase), RFC 9110's wording first, then Node's for the statuses RFC 9110
 * does not name; a status no one names (499) gets its class's.
 */
export function statusTitle(status: number): string {
  return STATUS_TITLES[status] ?? STATUS_CODES[status] ?? (status >= 500 ? 'Internal Server Error' : status >= 400 ? 'Bad Request' : 'OK');
}

/** The reason phrase the status line carries, when it differs from Node's (RFC 9110 wording, as problem titles). */
export function reasonPhrase(status: number): string | undefined {
  return STATUS_TITLES[status];
}

const STATUS_TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 408: 'Request Timeout', 409: 'Conflict', 410: 'Gone', 412: 'Precondition Failed', 413: 'Content Too Large',
  414: 'URI Too Long', 415: 'Unsupported Media Type', 422: 'Unprocessable Content', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 507: 'Insufficient Storage',
};
