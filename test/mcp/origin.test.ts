// /mcp against DNS rebinding: a request with an Origin the server does not allow, or (listening on
// loopback, or with MCP_ALLOWED_HOSTS) a Host that does not name the server, gets 403 in the error
// shape; requests without Origin by the server's own names go on. Hostile and malformed headers are
// refused, never parsed into an allowed name.

import { expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config";
import { listensOnLoopback, originGuard } from "../../src/mcp/origin";

const LOOPBACK = { API_HOST: "127.0.0.1" } as const;

function ask(settings: Parameters<typeof originGuard>[0], headers: Record<string, string>) {
  return originGuard(settings)(new Request("http://127.0.0.1:8790/mcp", { method: "POST", headers }));
}

async function refusal(settings: Parameters<typeof originGuard>[0], headers: Record<string, string>) {
  const response = ask(settings, headers);
  if (!response) return null;
  return { status: response.status, code: ((await response.json()) as any).error.code as string };
}

const FORBIDDEN = { status: 403, code: "forbidden" };

test("on loopback: the server's own names pass without Origin, any other Host gets 403", async () => {
  for (const host of ["127.0.0.1:8790", "localhost:8790", "LOCALHOST", "[::1]:8790", "127.0.0.2", "127.1:8790"])
    expect({ host, refusal: await refusal(LOOPBACK, { host }) }).toEqual({ host, refusal: null });
  for (const host of [
    "evil.example",
    "evil.example:8790",
    "127.0.0.1.evil.example",
    "evil.example@127.0.0.1",
    "127.0.0.1@evil.example",
    "127.0.0.1:8790/evil",
    "127.0.0.1:99999999",
    "localhost.evil.example",
    "[::ffff:7f00:1]x",
    "",
    " ",
    "%31%32%37.0.0.1",
  ])
    expect({ host, refusal: await refusal(LOOPBACK, { host }) }).toEqual({ host, refusal: FORBIDDEN });
  expect(await refusal(LOOPBACK, {})).toEqual(FORBIDDEN); // no Host at all
});

test("an Origin passes only when allowed: the server's own, TXRAY_PUBLIC_URL's or MCP_ALLOWED_ORIGINS'", async () => {
  const host = "127.0.0.1:8790";
  expect(await refusal(LOOPBACK, { host, origin: "http://127.0.0.1:8790" })).toBeNull();
  for (const origin of [
    "http://evil.example",
    "https://evil.example:8790",
    "null",
    "",
    "http://localhost:8790", // another origin than the one the request names
    "https://127.0.0.1:8790",
    "http://127.0.0.1:8791",
    "http://127.0.0.1:8790/mcp",
    "http://user@127.0.0.1:8790",
    "not a url",
  ])
    expect({ origin, refusal: await refusal(LOOPBACK, { host, origin }) }).toEqual({ origin, refusal: FORBIDDEN });
  // The page of a rebound name is its own origin too, but the name is not the server's.
  expect(
    await refusal({ API_HOST: "0.0.0.0" }, { host: "evil.example:8790", origin: "http://evil.example:8790" }),
  ).toEqual(FORBIDDEN);

  const listed = { ...LOOPBACK, MCP_ALLOWED_ORIGINS: "https://app.example.com, http://localhost:3000" };
  expect(await refusal(listed, { host, origin: "https://app.example.com" })).toBeNull();
  expect(await refusal(listed, { host, origin: "http://localhost:3000" })).toBeNull();
  for (const origin of ["https://app.example.com.evil.example", "http://app.example.com", "https://evil.example"])
    expect({ origin, refusal: await refusal(listed, { host, origin }) }).toEqual({ origin, refusal: FORBIDDEN });
});

test("TXRAY_PUBLIC_URL's host and origin are the server's; MCP_ALLOWED_HOSTS adds names", async () => {
  const behindProxy = { ...LOOPBACK, TXRAY_PUBLIC_URL: "https://txray.example.com" };
  expect(await refusal(behindProxy, { host: "txray.example.com" })).toBeNull();
  expect(await refusal(behindProxy, { host: "txray.example.com", origin: "https://txray.example.com" })).toBeNull();
  expect(await refusal(behindProxy, { host: "txray.example.com", origin: "https://txray.example.com:8443" })).toEqual(
    FORBIDDEN,
  );
  expect(await refusal(behindProxy, { host: "other.example.com" })).toEqual(FORBIDDEN);

  // Listening beyond loopback, Host is checked only when MCP_ALLOWED_HOSTS lists the names.
  expect(await refusal({ API_HOST: "0.0.0.0" }, { host: "10.1.2.3:8790" })).toBeNull();
  const named = { API_HOST: "0.0.0.0", MCP_ALLOWED_HOSTS: "txray.internal,[fd00::1]" };
  expect(await refusal(named, { host: "txray.internal:8790" })).toBeNull();
  expect(await refusal(named, { host: "[FD00::1]:8790" })).toBeNull();
  expect(await refusal(named, { host: "10.1.2.3:8790" })).toEqual(FORBIDDEN);
});

test("which API_HOST values are loopback", () => {
  for (const host of ["127.0.0.1", "localhost", "::1", "127.0.0.53"]) expect(listensOnLoopback(host)).toBe(true);
  for (const host of ["0.0.0.0", "::", "10.0.0.1", "127.0.0.1.example.com"])
    expect(listensOnLoopback(host)).toBe(false);
});

test("bad MCP_ALLOWED_ORIGINS and MCP_ALLOWED_HOSTS stop start-up naming the setting", () => {
  for (const [name, value] of [
    ["MCP_ALLOWED_ORIGINS", "*"],
    ["MCP_ALLOWED_ORIGINS", "https://app.example.com/path"],
    ["MCP_ALLOWED_ORIGINS", "ftp://files.example.com"],
    ["MCP_ALLOWED_ORIGINS", "https://app.example.com,"],
    ["MCP_ALLOWED_HOSTS", "txray.internal:8790"],
    ["MCP_ALLOWED_HOSTS", "evil@txray.internal"],
    ["MCP_ALLOWED_HOSTS", "a,,b"],
  ]) {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  }
  expect(
    loadConfig({ MCP_ALLOWED_ORIGINS: "https://app.example.com", MCP_ALLOWED_HOSTS: "txray.internal" }),
  ).toMatchObject({
    MCP_ALLOWED_ORIGINS: "https://app.example.com",
    MCP_ALLOWED_HOSTS: "txray.internal",
  });
});
