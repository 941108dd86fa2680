// A gate for handler tests: a handler waits at it until the test opens it, so that a test decides
// when a running handler goes on instead of guessing how long it needs (no sleeps, no spin timers).
//
// The gate is a collection: a handler waits by asking the model API, again and again, whether it
// has a member, and the test opens it by creating one. Each question is a model-API call, which
// runs on the server's event loop: the loop keeps serving the test while the handler waits.

/** Add to the app's models and resources as `gate`. */
export const GATE_MODEL = { fields: { open: { type: 'boolean' } } };
export const GATE_HANDLER = 'svc.delegate();\n';

/**
 * Guest code defining `waitForGate()`. The wait uses model-API time (a little per call), so a
 * server whose handlers wait should allow more of it than the default: see GATE_LIMITS.
 */
export const WAIT_FOR_GATE = "const waitForGate = () => {\n  while (svc.collection('gate').count({}) === 0);\n};\n";

/** Limits for a server whose handlers wait at the gate: model-API time for a long wait, in ms. */
export const GATE_LIMITS = { modelLimitMs: 20_000 };

/** Opens the gate of the server whose URLs `at` makes; it stays open. */
export async function openGate(at: (path: string) => string): Promise<void> {
  const res = await fetch(at('/resources/gate'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"open":true}' });
  if (res.status !== 201) throw new Error(`opening the gate failed: ${res.status} ${await res.text()}`);
}
