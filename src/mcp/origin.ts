// DNS rebinding protection for /mcp, as the MCP specification's Streamable HTTP transport asks of a
// server: a web page on a hostile site can make a browser send requests to a server on loopback by
// pointing its own name at 127.0.0.1, so a request whose `Origin` is not allowed, or (on a server
// listening on loopback) whose `Host` is not one of the server's own names, gets 403 before anything
// else. Non-browser clients send no `Origin` and name the server as they reached it, so they pass.
//
// Allowed origins: MCP_ALLOWED_ORIGINS, the origin of TXRAY_PUBLIC_URL, and the server's own
// origin (an origin whose host is the request's `Host`, when that names the server). The server's
// names: loopback (`localhost`, 127.0.0.0/8, `[::1]`), the host of TXRAY_PUBLIC_URL and
// MCP_ALLOWED_HOSTS. The `Host` check applies when API_HOST is a loopback address, or whenever
// MCP_ALLOWED_HOSTS is set.

import type { Config } from "../config";
import { errorBody } from "../shared/errors";

type OriginSettings = Pick<Config, "API_HOST"> &
  Partial<Pick<Config, "TXRAY_PUBLIC_URL" | "MCP_ALLOWED_ORIGINS" | "MCP_ALLOWED_HOSTS">>;

/** `name` or `name:port`, the name a DNS name, an IPv4 address or a bracketed IPv6 address (RFC 9110 §7.2). */
const HOST_HEADER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$/;

const isLoopbackName = (hostname: string) =>
  hostname === "localhost" || hostname === "[::1]" || /^127(\.[0-9]{1,3}){3}$/.test(hostname);

/** Whether the server listens on loopback only (API_HOST), where rebinding is what reaches it. */
export function listensOnLoopback(apiHost: string): boolean {
  const host = apiHost.toLowerCase();
  return isLoopbackName(host) || host === "::1";
}

/** The host name of a `Host` header, normalised as a URL's (lower case, `127.1` → `127.0.0.1`); null when malformed. */
function hostnameOf(host: string): string | null {
  if (!HOST_HEADER.test(host)) return null;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

const listOf = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== "");

/** The checks of one server's settings. */
export function originGuard(settings: OriginSettings) {
  const publicUrl = settings.TXRAY_PUBLIC_URL ? new URL(settings.TXRAY_PUBLIC_URL) : null;
  const ownNames = new Set(listOf(settings.MCP_ALLOWED_HOSTS).map((name) => hostnameOf(name) ?? name));
  if (publicUrl) ownNames.add(publicUrl.hostname);
  const isOwnName = (hostname: string) => isLoopbackName(hostname) || ownNames.has(hostname);
  const allowedOrigins = new Set(listOf(settings.MCP_ALLOWED_ORIGINS).map((origin) => new URL(origin).origin));
  if (publicUrl) allowedOrigins.add(publicUrl.origin);
  const checksHost = listensOnLoopback(settings.API_HOST) || settings.MCP_ALLOWED_HOSTS !== undefined;

  const originAllowed = (origin: string, request: Request, host: string | null) => {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // `null` (a sandboxed page, a redirect) and anything else that is not an origin
    }
    if (url.origin !== origin.toLowerCase()) return false; // a path, credentials or a query: not an origin
    if (allowedOrigins.has(url.origin)) return true;
    // The server's own origin: its scheme, and the host the request names, when that is one of the server's names.
    const scheme = new URL(request.url).protocol;
    return host !== null && url.protocol === scheme && url.host === host.toLowerCase() && isOwnName(url.hostname);
  };

  /** The 403 for a request from a page the server does not trust or by a name that is not its own; null to go on. */
  return (request: Request): Response | null => {
    const host = request.headers.get("host");
    if (checksHost) {
      const hostname = host === null ? null : hostnameOf(host);
      if (hostname === null || !isOwnName(hostname))
        return forbidden(
          "the Host header does not name this server (DNS rebinding protection): use localhost, a loopback address, " +
            "the host of TXRAY_PUBLIC_URL or one of MCP_ALLOWED_HOSTS",
        );
    }
    const origin = request.headers.get("origin");
    if (origin !== null && !originAllowed(origin, request, host))
      return forbidden(
        "requests from this Origin are not allowed (DNS rebinding protection): MCP_ALLOWED_ORIGINS lists the web " +
          "origins that may call /mcp; clients that are not browsers send no Origin",
      );
    return null;
  };
}

function forbidden(message: string): Response {
  return Response.json(errorBody("forbidden", message), { status: 403 });
}
