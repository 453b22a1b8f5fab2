// IP addresses and networks parsed strictly into bytes (4 for IPv4, 16 for IPv6), so a range check
// compares numbers, never spellings: IPv4 only as four decimal parts (no `127.1`, no hex, no leading
// zeros), IPv6 in any RFC 4291 form without a zone. Used by the settings (ALERTS_ALLOWED_NETWORKS)
// and by the alerts' destination checks.

export type IpAddress = Uint8Array;
export type IpNetwork = { bytes: IpAddress; prefix: number };

const IPV4_PART = /^(?:0|[1-9]\d{0,2})$/;

function parseIpv4(text: string): IpAddress | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((part) => IPV4_PART.test(part) && Number(part) <= 255)) return null;
  return Uint8Array.from(parts.map(Number));
}

function parseIpv6(text: string): IpAddress | null {
  let body = text;
  let tail: IpAddress | null = null;
  const lastColon = body.lastIndexOf(":");
  if (body.includes(".", lastColon)) {
    tail = parseIpv4(body.slice(lastColon + 1));
    if (tail === null) return null;
    body = `${body.slice(0, lastColon + 1)}0:0`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  if (!all.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return null;
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    const value = Number.parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  if (tail) bytes.set(tail, 12);
  return bytes;
}

/** An IPv4 or IPv6 address (IPv6 with or without brackets); null for anything else. */
export function parseIp(text: string): IpAddress | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  return bare.includes(":") ? parseIpv6(bare) : parseIpv4(bare);
}

/** `a.b.c.d/n` or `ipv6/n`; null when the address or the prefix length is not valid. */
export function parseNetwork(text: string): IpNetwork | null {
  const match = /^([^/]+)\/(0|[1-9]\d{0,2})$/.exec(text.trim());
  const bytes = match ? parseIp(match[1]) : null;
  if (!match || !bytes) return null;
  const prefix = Number(match[2]);
  return prefix <= bytes.length * 8 ? { bytes, prefix } : null;
}

/** A comma-separated list of networks (empty text: none); null when any entry is not a network. */
export function parseNetworks(text: string): IpNetwork[] | null {
  const entries = text.split(",").filter((entry) => entry.trim() !== "");
  const networks = entries.map(parseNetwork);
  return networks.every((network) => network !== null) ? (networks as IpNetwork[]) : null;
}

/** Whether `address` lies in `network` (both of the same family; a different family never matches). */
export function inNetwork(address: IpAddress, network: IpNetwork): boolean {
  if (address.length !== network.bytes.length) return false;
  for (let bit = 0; bit < network.prefix; bit += 8) {
    const bits = Math.min(8, network.prefix - bit);
    const mask = (0xff << (8 - bits)) & 0xff;
    if ((address[bit / 8] & mask) !== (network.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

/** The address as text: IPv4 dotted, IPv6 as eight hex groups (bracketed for a URL's host). */
export function formatIp(address: IpAddress, forUrl = false): string {
  if (address.length === 4) return address.join(".");
  const groups = Array.from({ length: 8 }, (_, index) =>
    ((address[index * 2] << 8) | address[index * 2 + 1]).toString(16),
  );
  return forUrl ? `[${groups.join(":")}]` : groups.join(":");
}

/**
 * Who a rate limit counts: an IPv4 address as itself, an IPv4-mapped IPv6 address as its IPv4
 * address, any other IPv6 address as its /64 (one subscriber's network: a host picks any address
 * in it, so counting single addresses would hand out 2^64 fresh identities). Null when `text` is
 * not an address.
 */
export function clientIdOf(text: string): string | null {
  const address = parseIp(text.trim());
  if (address === null) return null;
  if (address.length === 4) return formatIp(address);
  const mapped = address.subarray(0, 10).every((byte) => byte === 0) && address[10] === 0xff && address[11] === 0xff;
  if (mapped) return formatIp(address.subarray(12));
  const network = new Uint8Array(16);
  network.set(address.subarray(0, 8));
  return `${formatIp(network)}/64`;
}

/**
 * The address the outermost of `hops` trusted proxies saw, from a forwarded-for list (`client,
 * proxy1, proxy2`): each proxy appends the peer it saw, so the entry `hops` from the right is the
 * last one a trusted proxy wrote; everything to its left is the client's own claim. Null when the
 * list has fewer entries (the request did not come through every proxy) or that entry is not an
 * address.
 */
export function forwardedClient(header: string | null, hops: number): string | null {
  if (header === null || hops < 1) return null;
  const entries = header.split(",");
  if (entries.length < hops) return null;
  return clientIdOf(entries[entries.length - hops]);
}
