// Event functions: reads are delegated with a little logic around them; writes use the default handler.

export function onList() {
  // Large departments first unless the client chose an order.
  if (!zcontains('/request/params/order_by')) zput('/request/params/order_by', '-budget');
  svc.delegate();
}

export function onRetrieve() {
  svc.delegate();
  const dept = zget('/event/resource/member') as { name?: string } | undefined;
  if (dept) console.log(`retrieved department ${dept.name}`);
}

export function onCreate() {
  svc.delegate();
}

export function onUpdate() {
  svc.delegate();
}

export function onDelete() {
  svc.delegate();
}
