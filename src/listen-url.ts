/**
 * `http://host:port` of a listen address, an IPv6 host in brackets (RFC 3986 §3.2.2): a server's
 * URL as bound, a worker's, and the default issuer (`security.jwt.issuer` unset).
 */
export const urlOf = (address: { readonly address: string; readonly port: number }): string =>
  `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
