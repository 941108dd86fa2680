// The representations the server offers, in order of preference (the first is the default).

import { registerModelCheck } from '../model/load.ts';
import { atom, templateErrors } from './atom.ts';
import { json } from './json.ts';
import type { Representation } from './representation.ts';

export const REPRESENTATIONS: readonly Representation[] = [json, atom];

/**
 * The entity-tag suffixes of every representation: a conditional write names the member's state
 * by the tag of whichever representation the client read (handler/members.ts `Preconditions`).
 */
export const ETAG_SUFFIXES: readonly string[] = REPRESENTATIONS.map((r) => r.etagSuffix);

// A model whose Atom templates name unknown fields is rejected when it loads.
registerModelCheck(templateErrors);

/** The representation that reads request bodies of `mediaType`, if any. */
export function byMediaType(mediaType: string): Representation | undefined {
  return REPRESENTATIONS.find((r) => r.mediaType === mediaType);
}
