// Client identity for per-client limits: a client cannot pick its own address through the
// forwarded-for header (only entries written by trusted proxies count, read from the right), and
// an IPv6 client is one client per /64, however many addresses it takes from it; `why`'s chain
// look-ups are budgeted per surface and, for signatures txray never ingested, in all.
import { afterEach, expect, test } from "bun:test";
import { why } from "../../src/analytics/queries";
import { chainAccess } from "../../src/contract";
import type { TxrayError } from "../../src/shared/errors";
import { clientIdOf, forwardedClient } from "../../src/shared/ip-address";
import { testContext } from "../helpers/context";
import { randomSignature } from "../helpers/envelopes";
import { startFakeRpc } from "../helpers/fake-rpc";
import { type TestServer, testServer } from "../helpers/server";

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

test("the client is the entry the outermost trusted proxy wrote, never the client's own claim", () => {
  expect(forwardedClient("6.6.6.6, 203.0.113.5", 1)).toBe("203.0.113.5");
  expect(forwardedClient("6.6.6.6, 203.0.113.5, 10.0.0.2", 2)).toBe("203.0.113.5");
  expect(forwardedClient("203.0.113.5", 1)).toBe("203.0.113.5");
  // Fewer entries than proxies: the request did not come through them all.
  expect(forwardedClient("203.0.113.5", 2)).toBeNull();
  expect(forwardedClient("not-an-address", 1)).toBeNull();
  expect(forwardedClient("203.0.113.5", 0)).toBeNull();
  expect(forwardedClient(null, 1)).toBeNull();
});

test("IPv6 clients are counted per /64; IPv4-mapped IPv6 as the IPv4 address", () => {
  expect(clientIdOf("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2:0:0:0:0/64");
  expect(clientIdOf("[2001:db8:1:2:ffff:ffff:ffff:ffff]")).toBe("2001:db8:1:2:0:0:0:0/64");
  expect(clientIdOf("2001:db8:1:3::1")).toBe("2001:db8:1:3:0:0:0:0/64");
  expect(clientIdOf("::ffff:198.51.100.7")).toBe("198.51.100.7");
  expect(clientIdOf(" 198.51.100.7 ")).toBe("198.51.100.7");
  expect(clientIdOf("198.51.100.07")).toBeNull();
});

test("behind a proxy, rotating the leftmost entry or the low 64 bits earns no fresh budget", async () => {
  t = await testServer({ PUBLIC_RATE_PER_MINUTE: "3", TRUSTED_PROXY_HEADER: "x-forwarded-for" });
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++)
    statuses.push((await t.get("/v1/status", { "x-forwarded-for": `10.9.${i}.1, 203.0.113.5` })).status);
  expect(statuses).toEqual([200, 200, 200, 429, 429]);
  const v6: number[] = [];
  for (let i = 1; i <= 5; i++)
    v6.push((await t.get("/v1/status", { "x-forwarded-for": `2001:db8:7:7::${i.toString(16)}` })).status);
  expect(v6).toEqual([200, 200, 200, 429, 429]);
  expect((await t.get("/v1/status", { "x-forwarded-for": "2001:db8:7:8::1" })).status).toBe(200);
});

test("TRUSTED_PROXY_HOPS counts the proxies; 0 ignores the header", async () => {
  t = await testServer({ PUBLIC_RATE_PER_MINUTE: "1", TRUSTED_PROXY_HOPS: "2" });
  expect((await t.get("/v1/status", { "x-forwarded-for": "1.1.1.1, 203.0.113.5, 10.0.0.2" })).status).toBe(200);
  expect((await t.get("/v1/status", { "x-forwarded-for": "2.2.2.2, 203.0.113.5, 10.0.0.3" })).status).toBe(429);
  expect((await t.get("/v1/status", { "x-forwarded-for": "1.1.1.1, 203.0.113.6, 10.0.0.2" })).status).toBe(200);
  await t.stop();
  t = await testServer({
    PUBLIC_RATE_PER_MINUTE: "1",
    TRUSTED_PROXY_HEADER: "x-forwarded-for",
    TRUSTED_PROXY_HOPS: "0",
  });
  expect((await t.get("/v1/status", { "x-forwarded-for": "203.0.113.5" })).status).toBe(200);
  expect((await t.get("/v1/status", { "x-forwarded-for": "203.0.113.6" })).status).toBe(429); // both: the socket's peer
});

test("why's chain look-ups: a budget per surface, and one for all look-ups of signatures never ingested", async () => {
  const rpc = await startFakeRpc();
  const ctx = await testContext({
    SOLANA_RPC_URL: rpc.url,
    WHY_CHAIN_PER_MINUTE: "3",
    WHY_CHAIN_LOOKUPS_PER_MINUTE: "8",
  });
  try {
    const deps = chainAccess(ctx).whyDeps();
    const ask = (client: string) =>
      why(ctx, deps, { sig: randomSignature(), client }).then(
        () => "found",
        (error: TxrayError) => error.code,
      );
    const lookups = () => rpc.calls.filter((method) => method === "getTransaction").length;
    const mcp: string[] = [];
    for (let i = 0; i < 5; i++) mcp.push(await ask("mcp:203.0.113.5"));
    expect(mcp).toEqual(["not_found", "not_found", "not_found", "rate_limited", "rate_limited"]);
    // The same caller over Slack and over HTTP has budgets of its own.
    expect(await ask("slack:T1:U1")).toBe("not_found");
    expect(await ask("203.0.113.5")).toBe("not_found");
    expect(lookups()).toBe(5);
    // Fresh clients on every surface: the look-ups of unknown signatures stop at the budget for all.
    const fresh: string[] = [];
    for (let i = 0; i < 6; i++) fresh.push(await ask(`slack:T1:U${i + 2}`), await ask(`198.51.100.${i}`));
    expect(fresh.filter((code) => code === "rate_limited").length).toBe(9);
    expect(lookups()).toBe(8);
  } finally {
    ctx.dispose();
    await rpc.stop();
  }
});
