// Bytes the C heap has handed out and not had back (glibc's mallinfo2: uordblks + hblkhd, every
// arena), through koffi as src/malloc-trim.ts calls malloc_trim; undefined where there is no glibc.
// Unlike resident memory, it does not move with pages the allocator keeps or gives back, nor with
// V8's heaps (mapped, not malloc'd): what ICU and isolated-vm allocate and free, and little else.

type Mallinfo2 = { uordblks: number | bigint; hblkhd: number | bigint };
let mallinfo2: (() => Mallinfo2) | null | undefined;

async function load(): Promise<(() => Mallinfo2) | null> {
  if (mallinfo2 !== undefined) return mallinfo2;
  try {
    if (process.platform !== 'linux') return (mallinfo2 = null);
    const { default: koffi } = await import('koffi');
    const fields = ['arena', 'ordblks', 'smblks', 'hblks', 'hblkhd', 'usmblks', 'fsmblks', 'uordblks', 'fordblks', 'keepcost'];
    const struct = koffi.struct('svc_test_mallinfo2', Object.fromEntries(fields.map((f) => [f, 'size_t'])));
    mallinfo2 = koffi.load('libc.so.6').func('mallinfo2', struct, []) as () => Mallinfo2;
  } catch {
    mallinfo2 = null;
  }
  return mallinfo2;
}

/** The C heap's bytes in use, or undefined where mallinfo2 cannot be called. */
export async function mallocInUse(): Promise<number | undefined> {
  const fn = await load();
  if (!fn) return undefined;
  const info = fn();
  return Number(info.uordblks) + Number(info.hblkhd);
}
