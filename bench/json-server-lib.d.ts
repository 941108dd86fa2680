// Types of the parts of json-server (v1, which ships JavaScript only) that bench/json-server.ts uses.

declare module 'json-server/lib/app.js' {
  import type { Server } from 'node:http';
  import type { Low } from 'lowdb';
  export function createApp(db: Low<Record<string, unknown>>, options?: { logger?: boolean; static?: string[] }): {
    listen(port: number, cb?: () => void, host?: string): Server;
  };
}

declare module 'json-server/lib/adapters/normalized-adapter.js' {
  import type { Adapter } from 'lowdb';
  export class NormalizedAdapter implements Adapter<Record<string, unknown>> {
    constructor(adapter: Adapter<Record<string, unknown>>);
    read(): Promise<Record<string, unknown> | null>;
    write(data: Record<string, unknown>): Promise<void>;
  }
}

declare module 'json-server/lib/adapters/observer.js' {
  import type { Adapter } from 'lowdb';
  export class Observer<T> implements Adapter<T> {
    constructor(adapter: Adapter<T>);
    read(): Promise<T | null>;
    write(data: T): Promise<void>;
  }
}
