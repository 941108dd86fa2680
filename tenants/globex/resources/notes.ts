// Titles are stored as given; a list shows the newest first unless the client chose an order.
export function onList() {
  if (!zcontains('/request/params/order_by')) zput('/request/params/order_by', '-id');
  svc.delegate();
}

export function onRetrieve() {
  svc.delegate();
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
