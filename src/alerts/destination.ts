// Where a webhook may go (docs/alerts.md#where-alerts-may-go). A rule's destination is written by
// whoever holds an account's admin key, and a key leaks, so a destination is never trusted to point
// anywhere: loopback, private, link-local, unique-local, CGNAT, multicast,
// unspecified and cloud metadata addresses are refused unless the operator lists their range in
// ALERTS_ALLOWED_NETWORKS. A literal address is checked when the rule is created; at send time the
// host is resolved, every address it resolves to is checked, and the request goes to the checked
// address itself (the hostname kept for Host, SNI and the certificate check), so a DNS answer that
// changes between the check and the connection cannot move the request inside.

import { lookup as systemLookup } from "node:dns/promises";
import type { Config } from "../config";
import {
  formatIp,
  type IpAddress,
  type IpNetwork,
  inNetwork,
  parseIp,
  parseNetwork,
  parseNetworks,
} from "../shared/ip-address";

/** The one setting the destination checks read. */
export type DestinationSettings = Pick<Config, "ALERTS_ALLOWED_NETWORKS">;

/** Resolves a hostname to every address it has (node:dns `lookup` with `all: true`). */
export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;
export const defaultLookup: Lookup = (hostname) => systemLookup(hostname, { all: true, verbatim: true });

const range = (cidr: string, kind: string) => ({ network: parseNetwork(cidr) as IpNetwork, kind });

/** Ranges no destination reaches unless allowed, each with what it is. */
const REFUSED_RANGES = [
  range("0.0.0.0/8", "unspecified"),
  range("10.0.0.0/8", "private"),
  range("100.64.0.0/10", "CGNAT"),
  range("127.0.0.0/8", "loopback"),
  range("169.254.0.0/16", "link-local"),
  range("172.16.0.0/12", "private"),
  range("192.0.0.0/24", "IETF special-purpose"),
  range("192.168.0.0/16", "private"),
  range("198.18.0.0/15", "benchmarking"),
  range("224.0.0.0/4", "multicast"),
  range("240.0.0.0/4", "reserved"),
  range("168.63.129.16/32", "cloud metadata"),
  range("::/96", "unspecified or IPv4-compatible"),
  range("::1/128", "loopback"),
  range("100::/64", "discard"),
  range("fc00::/7", "unique-local"),
  range("fe80::/10", "link-local"),
  range("fec0::/10", "site-local"),
  range("ff00::/8", "multicast"),
];

/** IPv6 forms that carry an IPv4 address, which is checked as well: mapped, NAT64 and 6to4. */
const MAPPED = parseNetwork("::ffff:0:0/96") as IpNetwork;
const NAT64 = parseNetwork("64:ff9b::/96") as IpNetwork;
const SIX_TO_FOUR = parseNetwork("2002::/16") as IpNetwork;

function embeddedIpv4(address: IpAddress): IpAddress[] {
  if (address.length !== 16) return [];
  if (inNetwork(address, MAPPED) || inNetwork(address, NAT64)) return [address.slice(12)];
  if (inNetwork(address, SIX_TO_FOUR)) return [address.slice(2, 6)];
  return [];
}

/** The operator's allowed networks (ALERTS_ALLOWED_NETWORKS is validated when the settings load). */
export const allowedNetworks = (settings: DestinationSettings): IpNetwork[] =>
  parseNetworks(settings.ALERTS_ALLOWED_NETWORKS ?? "") ?? [];

/** What kind of address alerts may not reach `address` is, or null when they may. */
export function refusedKind(address: IpAddress, allowed: readonly IpNetwork[]): string | null {
  const mapped = address.length === 16 && inNetwork(address, MAPPED);
  for (const candidate of mapped ? embeddedIpv4(address) : [address, ...embeddedIpv4(address)]) {
    if (allowed.some((network) => inNetwork(candidate, network))) continue;
    const refused = REFUSED_RANGES.find((entry) => inNetwork(candidate, entry.network));
    if (refused) return `${refused.kind}${mapped ? " (IPv4-mapped)" : ""}`;
  }
  return null;
}

/** `localhost` and its subdomains always name this machine, whatever DNS says. */
const isLocalhostName = (hostname: string) => /(^|\.)localhost\.?$/i.test(hostname);
const LOCALHOST_ADDRESSES = [parseIp("127.0.0.1") as IpAddress, parseIp("::1") as IpAddress];

/** The addresses a URL's host names without asking DNS: a literal address, or localhost; null for other names. */
function knownAddresses(url: URL): IpAddress[] | null {
  const literal = parseIp(url.hostname);
  if (literal) return [literal];
  return isLocalhostName(url.hostname) ? LOCALHOST_ADDRESSES : null;
}

const NOT_ALLOWED = "(ALERTS_ALLOWED_NETWORKS lists the internal ranges alerts may reach)";

/**
 * Why a rule may not be created with this destination URL, or null: credentials in the URL, or a host
 * that is a refused address. The rule's schema has already required https://, or http:// to a
 * loopback host (src/alerts/rules.ts), which is then refused here unless its range is allowed.
 */
export function destinationProblem(text: string, settings: DestinationSettings): string | null {
  const url = new URL(text);
  if (url.username !== "" || url.password !== "")
    return "must not hold credentials (user:password@): use the webhook secret, or a token in the path";
  const allowed = allowedNetworks(settings);
  const addresses = knownAddresses(url);
  for (const address of addresses ?? []) {
    const kind = refusedKind(address, allowed);
    if (kind) return `is a ${kind} address, which alerts may not reach ${NOT_ALLOWED}`;
  }
  return null;
}

/** Where one attempt connects: the URL to fetch (the host replaced by the checked address) and how. */
export type PinnedTarget = { url: string; host: string; serverName: string | null };

/**
 * Resolves the destination's host and checks every address it resolves to; the request then goes to
 * the first of them. `refused` names why not (a policy answer: retrying would not help);
 * `unreachable` means the name did not resolve.
 */
export async function resolveDestination(
  text: string,
  settings: DestinationSettings,
  lookup: Lookup,
): Promise<{ targets: PinnedTarget[] } | { refused: string } | { unreachable: string }> {
  const url = new URL(text);
  const problem = destinationProblem(text, settings);
  if (problem) return { refused: `destination.url ${problem}` };
  const known = knownAddresses(url);
  if (known && !isLocalhostName(url.hostname))
    return { targets: [{ url: url.href, host: url.host, serverName: null }] };
  let answers: { address: string; family: number }[];
  try {
    answers = await lookup(url.hostname.replace(/\.$/, ""));
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    return { unreachable: `the host did not resolve${typeof code === "string" ? ` (${code})` : ""}` };
  }
  if (answers.length === 0) return { unreachable: "the host did not resolve" };
  const allowed = allowedNetworks(settings);
  const addresses: IpAddress[] = [];
  for (const answer of answers) {
    const address = parseIp(answer.address);
    const kind = address ? refusedKind(address, allowed) : "unparseable";
    if (!address || kind)
      return { refused: `destination.url resolves to a ${kind} address, which alerts may not reach ${NOT_ALLOWED}` };
    addresses.push(address);
  }
  return {
    targets: addresses.map((address) => {
      const pinned = new URL(url.href);
      pinned.hostname = formatIp(address, true);
      return { url: pinned.href, host: url.host, serverName: url.protocol === "https:" ? url.hostname : null };
    }),
  };
}
