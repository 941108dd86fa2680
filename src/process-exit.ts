// How a server process ends after its graceful stop: the 'exit' listeners run (the log writes the
// lines it holds), then the process ends at once through libc's `_exit`, skipping the C++ teardown
// that process.exit() does next. isolated-vm deletes disposed isolates, and runs their garbage
// collections, on threads of its own, and joins them from an `atexit` handler; when one of those
// tasks ran while Node had already torn V8's platform down, the process died of SIGSEGV instead of
// exiting 0 (1 exit in 5 after SIGTERM on a busy machine; the cores show
// `ivm::IsolateEnvironment::~IsolateEnvironment` and a scavenge on an isolated-vm thread while the
// main thread was in `exit()`). The stores are closed and every write is durable before this runs.
// Where `_exit` cannot be called (no glibc, koffi cannot load), it is process.exit(); so it is
// when Node was asked for a CPU or heap profile (`--cpu-prof`, `--heap-prof`: bench/profile.ts),
// which Node writes in the teardown that `_exit` skips.

type ExitFn = (code: number) => void;

/** Node writes these profiles when the process ends normally (its environment's cleanup). */
const PROFILE_FLAG = /(?:^|\s)--(?:cpu|heap)-prof(?=\s|$)/;

async function loadExit(): Promise<ExitFn | null> {
  if (process.platform !== 'linux') return null;
  if ([...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => PROFILE_FLAG.test(a))) return null;
  try {
    const { default: koffi } = await import('koffi');
    return koffi.load('libc.so.6').func('void _exit(int status)') as unknown as ExitFn;
  } catch {
    return null;
  }
}

/** Ends the process with `code` once its 'exit' listeners have run. */
export async function exitAfterStop(code: number): Promise<never> {
  const exit = await loadExit();
  // Added now, so after every other listener: they all run first.
  if (exit) process.on('exit', (status) => exit(status));
  process.exit(code);
}
