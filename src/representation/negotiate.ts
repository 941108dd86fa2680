// Representation selection (README "Representations"): a pure function of `format_as`, `Accept` and what is available.

import { SvcError } from '../errors.ts';
import type { Representation } from './representation.ts';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** Parses an Accept header (RFC 9110 §12.5.1); malformed ranges are skipped. */
export function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [range, ...params] = part.split(';').map((s) => s.trim());
    const m = /^([\w.+*-]+)\/([\w.+*-]+)$/.exec(range ?? '');
    if (!m) continue;
    let q = 1;
    for (const p of params) {
      const qm = /^q\s*=\s*([01](?:\.\d{0,3})?)$/i.exec(p);
      if (qm) q = Math.min(1, Number(qm[1]));
    }
    ranges.push({ type: m[1]!.toLowerCase(), subtype: m[2]!.toLowerCase(), q });
  }
  return ranges;
}

/** Quality the header gives a media type: that of the most specific matching range. */
function quality(ranges: MediaRange[], mediaType: string): number {
  const [type, subtype] = mediaType.split('/') as [string, string];
  let best = -1;
  let specificity = -1;
  for (const r of ranges) {
    const s = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === '*' ? 1 : r.type === '*' && r.subtype === '*' ? 0 : -1;
    if (s > specificity) {
      specificity = s;
      best = r.q;
    }
  }
  return specificity === -1 ? 0 : best;
}

/**
 * Chooses the response representation. `format_as` wins over `Accept`; no header and `*` mean
 * the first available (JSON). Ties between equally acceptable types go to the earlier one.
 */
export function negotiate(available: readonly Representation[], accept: string | undefined, formatAs: string | undefined): Representation {
  if (formatAs !== undefined) {
    const chosen = available.find((r) => r.name === formatAs);
    if (!chosen) {
      throw new SvcError('invalid-query', `format_as must be one of: ${available.map((r) => r.name).join(', ')}`, {
        errors: [{ parameter: 'format_as', message: `must be one of: ${available.map((r) => r.name).join(', ')}` }],
      });
    }
    return chosen;
  }
  if (accept === undefined || accept.trim() === '') return available[0]!;
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return available[0]!;
  let best: Representation | undefined;
  let bestQ = 0;
  for (const r of available) {
    const q = quality(ranges, r.mediaType);
    if (q > bestQ) {
      best = r;
      bestQ = q;
    }
  }
  if (!best) {
    throw new SvcError('not-acceptable', `Accept "${accept.slice(0, 200)}" admits none of: ${available.map((r) => r.mediaType).join(', ')}`);
  }
  return best;
}
