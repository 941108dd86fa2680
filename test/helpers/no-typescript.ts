// Preloaded by a test (`node --import`): the `typescript` package cannot be found, as in an install without it.

import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'typescript' || specifier.startsWith('typescript/')) {
      throw Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' });
    }
    return next(specifier, context);
  },
});
