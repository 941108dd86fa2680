// What the server needs of the app (tenant) a request is for: found by Host, it supplies the rest of the Exchange.

import type { ModelRegistry } from '../model/registry.ts';
import type { Store } from '../store/store.ts';
import type { HandlerRuntime } from './runtime.ts';
import type { AppSettings } from './settings.ts';

/** What the server needs of the app (tenant) a request is for. */
export interface ServedApp {
  /** The tenant's name; '' in single-app mode. */
  readonly name: string;
  readonly models: ModelRegistry;
  readonly store: Store;
  readonly runtime: HandlerRuntime;
  /** Its `svc.json`: fetch origins, env values, and the limits of its requests. */
  readonly settings: AppSettings;
  /** The handler script of a collection, or undefined when HTTP access to it is off. */
  handlerFile(collection: string): string | undefined;
}
