// The representations the server offers, in order of preference (the first is the default).

import { json } from './json.ts';
import type { Representation } from './representation.ts';

export const REPRESENTATIONS: readonly Representation[] = [json];

/** The representation that reads request bodies of `mediaType`, if any. */
export function byMediaType(mediaType: string): Representation | undefined {
  return REPRESENTATIONS.find((r) => r.mediaType === mediaType);
}
