// `console.log/warn/error` of a handler: into the server's log, bounded per request, unforgeable.

import { oneLine } from '../../exchange/log.ts';
import { isRecord, malformed, MAX_LOG_CHARS, MAX_LOG_LINES, type Op } from '../guest.ts';

export const log: Op = (call, payload, text) => {
  if (!isRecord(payload) || (payload.level !== 'log' && payload.level !== 'warn' && payload.level !== 'error')) throw malformed('log');
  const lines = (call.logLines ?? 0) + 1;
  const chars = (call.logChars ?? 0) + text.length;
  call.logLines = lines;
  call.logChars = chars;
  if (lines > MAX_LOG_LINES || chars > MAX_LOG_CHARS) {
    // Said once: the call that passes the cap; the prelude sends no more after it.
    if (lines - 1 <= MAX_LOG_LINES && chars - text.length <= MAX_LOG_CHARS) {
      call.ex.log.warn(`console output over ${MAX_LOG_LINES} lines or ${MAX_LOG_CHARS} characters: the rest of this request's is dropped`);
    }
    return null;
  }
  // Control characters escaped in every format (the text sink does so for any record), so that a
  // handler cannot forge log lines.
  call.ex.log.info(`${payload.level}: ${oneLine(text)}`);
  return null;
};
