// A store URI as messages and the log show it: without its secrets.

/**
 * Query options of a MongoDB URI whose values are secrets: passwords (`proxyPassword`,
 * `tlsCertificateKeyFilePassword`, and any other `…password…`), and `authMechanismProperties`,
 * which may carry an AWS session token (https://www.mongodb.com/docs/manual/reference/connection-string-options/).
 */
const SECRET_OPTION = /^(?:[^=&]*password[^=&]*|[^=&]*secret[^=&]*|[^=&]*token[^=&]*|authmechanismproperties)$/i;

/**
 * `text` (a store URI, or a message that may quote one) with the user name and password of every
 * `scheme://user:password@` in it replaced by `…`, and so the value of every secret query option.
 */
export function redact(text: string): string {
  return text
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^@/?\s]*@/gi, '$1…@')
    .replace(/([?&])([^=&\s]*)=([^&\s]*)/g, (all, sep: string, name: string) => (SECRET_OPTION.test(name) ? `${sep}${name}=…` : all));
}
