// `zget('/app/env/<NAME>')`: a value from the app's svc.json. Only this app's: the Exchange holds its settings.

import { isRecord, malformed, type Op } from '../guest.ts';

export const env: Op = (call, payload) => {
  if (!isRecord(payload) || typeof payload.name !== 'string') throw malformed('env');
  return call.ex.settings.env.get(payload.name) ?? null;
};
