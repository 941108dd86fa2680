// The whole handler: the default handler serves every event.
svc.delegate();
