// Where alert webhooks may go (docs/alerts.md#where-alerts-may-go): every address from the security
// review is refused when a rule is created and when an alert is sent (a hostname that resolves
// inside included, and one where any of its addresses does); an allowed range lets a loopback receiver
// work; the request goes to the checked address with the hostname kept for Host, SNI and the
// certificate; a redirect is never followed; the test route answers a class and a time, never the
// receiver's body. The receivers are real servers on loopback; lookups of made-up names are passed in.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  AlertTestResultSchema,
  createRule,
  destinationProblem,
  type Lookup,
  PAYLOAD_VERSION,
  type SendEffects,
  type StoredPayload,
  sendAttempt,
  sendTest,
} from "../../src/alerts";
import { ConfigError, loadConfig } from "../../src/config";
import { addProgramCounts, authenticate } from "../../src/control";
import { parseIp, parseNetworks } from "../../src/shared/ip-address";
import { testContext } from "../helpers/context";
import { randomAddress } from "../helpers/envelopes";
import { testServer } from "../helpers/server";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver";

const LOOPBACK = "127.0.0.0/8,::1/128";
const NOTHING_ALLOWED = { ALERTS_ALLOWED_NETWORKS: undefined };
const LOOPBACK_ALLOWED = { ALERTS_ALLOWED_NETWORKS: LOOPBACK };

/** The review's destinations, each of which reached inside. */
const REVIEW_URLS = [
  "http://127.0.0.1/hook",
  "http://localhost/hook",
  "http://127.1/hook",
  "https://user:pass@127.0.0.1/hook",
  "https://169.254.169.254/latest/meta-data/",
  "https://10.0.0.1/hook",
  "https://0x7f000001/hook",
  "https://[::1]/hook",
];
/** More of the refused ranges, in the spellings an attacker would try. */
const MORE_INSIDE_URLS = [
  "https://localhost/hook",
  "https://api.localhost/hook",
  "https://2130706433/hook",
  "https://0177.0.0.1/hook",
  "https://[::ffff:127.0.0.1]/hook",
  "https://[::ffff:a9fe:a9fe]/hook",
  "https://[64:ff9b::a00:1]/hook",
  "https://[2002:7f00:1::]/hook",
  "https://0.0.0.0/hook",
  "https://[::]/hook",
  "https://172.16.5.4/hook",
  "https://192.168.1.1/hook",
  "https://100.64.0.1/hook",
  "https://100.100.100.200/hook",
  "https://[fe80::1]/hook",
  "https://[fd00:ec2::254]/hook",
  "https://224.0.0.1/hook",
  "https://[ff02::1]/hook",
  "https://168.63.129.16/hook",
];

// A certificate for hooks.example.test only (self-signed, valid for a century): a test fixture.
const CERT = `-----BEGIN CERTIFICATE-----
MIIBsDCCAVagAwIBAgIUFWdrLF934PSJwV/6afvEaN8XatMwCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSaG9va3MuZXhhbXBsZS50ZXN0MCAXDTI2MTIwMjAyNDI1MFoY
DzIxMjYxMTA4MDI0MjUwWjAdMRswGQYDVQQDDBJob29rcy5leGFtcGxlLnRlc3Qw
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQ0pL15IVDREwEB5UtUBQvjl6PaFGXX
v/bI7FvxL5ILA2YDkpNQRMJU1mU1DZeGJmzSYB5QMj7kfZwnU9/tXwKlo3IwcDAd
BgNVHQ4EFgQUG5WgLawz2762GT9RnJ0QtzogyLkwHwYDVR0jBBgwFoAUG5WgLawz
2762GT9RnJ0QtzogyLkwDwYDVR0TAQH/BAUwAwEB/zAdBgNVHREEFjAUghJob29r
cy5leGFtcGxlLnRlc3QwCgYIKoZIzj0EAwIDSAAwRQIhANCXgpwFAfagNHIHOQNc
jN5O+Y2ohfBUsANK7zsZXYLoAiBB4HY4Mipe6F5gLthe9dWQkFpCq3qu2qNoB/8N
DdhHHg==
-----END CERTIFICATE-----`;
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgNkr7KOnQQ18tm1b7
aEegtLKoAo9PQN9fK77xeNW+3hShRANCAAQ0pL15IVDREwEB5UtUBQvjl6PaFGXX
v/bI7FvxL5ILA2YDkpNQRMJU1mU1DZeGJmzSYB5QMj7kfZwnU9/tXwKl
-----END PRIVATE KEY-----`;

const lookupTo =
  (...addresses: string[]): Lookup =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

/** fetch that records what it was asked and never connects. */
function recordingFetch(answer: () => Response | Promise<Response> = () => new Response("ok")) {
  const calls: { url: string; init: any }[] = [];
  const fetcher = (async (url: string, init: any) => {
    calls.push({ url: String(url), init });
    return await answer();
  }) as unknown as typeof fetch;
  return { calls, fetcher };
}

const effectsWith = (fetcher: typeof fetch, lookup?: Lookup): SendEffects => ({
  fetch: fetcher,
  clock: Date.now,
  random: () => 1,
  ...(lookup ? { lookup } : {}),
});

const payload = (): StoredPayload => ({
  version: PAYLOAD_VERSION,
  id: `dlv_${Math.random().toString(16).slice(2, 18).padEnd(16, "0")}00000001`,
  kind: "alert",
  alertId: "alr_0123456789abcdef",
  rule: "new_issue",
  program: randomAddress(),
  subject: "issue:v1:1",
  state: "firing",
  title: "New issue",
  text: ["1 occurrence"],
  data: {},
  links: { program: "http://127.0.0.1/p/x" },
  firingSince: Date.now(),
  changedAt: Date.now(),
});

const webhook = (url: string) => ({ type: "webhook" as const, url, secret: "s3cr3t-0123456789abcdef" });

describe("addresses", () => {
  test("IPs are parsed strictly; the URL parser turns every IPv4 spelling into dotted decimal first", () => {
    for (const text of [
      "127.1",
      "0x7f.0.0.1",
      "0177.0.0.1",
      "2130706433",
      "1.2.3.4.5",
      "256.1.1.1",
      "1::2::3",
      "fe80::1%eth0",
    ])
      expect(parseIp(text)).toBeNull();
    expect(parseIp("::ffff:127.0.0.1")).toEqual(parseIp("::ffff:7f00:1"));
    for (const host of ["127.1", "0x7f000001", "2130706433", "0177.0.0.1", "127.0.0.1."])
      expect(new URL(`https://${host}/`).hostname).toMatch(/^127\.0\.0\.1\.?$/);
    expect(new URL("https://[::ffff:127.0.0.1]/").hostname).toBe("[::ffff:7f00:1]");
  });
  test("ALERTS_ALLOWED_NETWORKS takes a comma-separated CIDR list; anything else stops start-up naming it", () => {
    expect(parseNetworks(LOOPBACK)).toHaveLength(2);
    expect(loadConfig({ ALERTS_ALLOWED_NETWORKS: LOOPBACK }).ALERTS_ALLOWED_NETWORKS).toBe(LOOPBACK);
    expect(loadConfig({}).ALERTS_ALLOWED_NETWORKS).toBeUndefined();
    for (const bad of ["localhost", "127.0.0.1", "127.0.0.0/33", "::1/129", "10.0.0.0/8;", "127.1/8"]) {
      expect(() => loadConfig({ ALERTS_ALLOWED_NETWORKS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ ALERTS_ALLOWED_NETWORKS: bad })).toThrow("ALERTS_ALLOWED_NETWORKS");
    }
  });
  test("every address from the review and the other inside ranges is a problem; public hosts are not", () => {
    for (const url of [...REVIEW_URLS, ...MORE_INSIDE_URLS])
      expect({ url, problem: destinationProblem(url, NOTHING_ALLOWED) }).toMatchObject({ problem: expect.any(String) });
    expect(destinationProblem("https://user:pass@example.com/hook", LOOPBACK_ALLOWED)).toContain("credentials");
    expect(destinationProblem("https://:token@example.com/hook", NOTHING_ALLOWED)).toContain("credentials");
    for (const url of ["https://example.com/hook", "https://hooks.slack.com/services/T/B/X", "https://93.184.216.34/x"])
      expect(destinationProblem(url, NOTHING_ALLOWED)).toBeNull();
  });
  test("an allowed range opens exactly that range; http:// stays limited to allowed loopback", () => {
    for (const url of [
      "http://127.0.0.1:9000/x",
      "http://127.1/x",
      "http://localhost/x",
      "https://[::1]/x",
      "https://[::ffff:127.0.0.1]/x",
    ])
      expect(destinationProblem(url, LOOPBACK_ALLOWED)).toBeNull();
    for (const url of ["https://10.0.0.1/x", "https://169.254.169.254/x", "https://user:pass@127.0.0.1/x"])
      expect(destinationProblem(url, LOOPBACK_ALLOWED)).not.toBeNull();
    expect(destinationProblem("http://localhost/x", { ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8" })).not.toBeNull();
    expect(destinationProblem("https://10.1.2.3/x", { ALERTS_ALLOWED_NETWORKS: "10.1.0.0/16" })).toBeNull();
    expect(destinationProblem("https://10.2.0.1/x", { ALERTS_ALLOWED_NETWORKS: "10.1.0.0/16" })).not.toBeNull();
  });
});

describe("creating a rule", () => {
  let server: Awaited<ReturnType<typeof testServer>>;
  let key: string;
  beforeAll(async () => {
    server = await testServer();
    key = server.key("team-ssrf");
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  test("each review address and a URL with credentials is a 400 naming destination.url", async () => {
    for (const url of [...REVIEW_URLS, ...MORE_INSIDE_URLS, "https://user:pass@example.com/hook"]) {
      const response = await fetch(`${server.url}/v1/alerts`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ program: randomAddress(), rule: "new_issue", destination: webhook(url) }),
      });
      const body = (await response.json()) as any;
      expect({ url, status: response.status, code: body.error?.code }).toEqual({
        url,
        status: 400,
        code: "bad_request",
      });
      expect(body.error.message).toStartWith("destination.url: ");
    }
  });
});

describe("sending", () => {
  let receiver: Receiver;
  beforeAll(() => {
    receiver = startReceiver();
  });
  afterAll(() => receiver?.stop());

  test("at send time every review address is refused for good without a request, even one a rule already holds", async () => {
    const { calls, fetcher } = recordingFetch();
    for (const url of [...REVIEW_URLS, ...MORE_INSIDE_URLS]) {
      const outcome = await sendAttempt(webhook(url), payload(), 1, effectsWith(fetcher), NOTHING_ALLOWED);
      expect({ url, status: outcome.status, noAnswer: (outcome as any).noAnswer }).toEqual({
        url,
        status: "failed",
        noAnswer: "refused",
      });
    }
    const port = new URL(receiver.url).port;
    const loopback = await sendAttempt(
      webhook(`${receiver.url}/x`),
      payload(),
      1,
      effectsWith(globalThis.fetch),
      NOTHING_ALLOWED,
    );
    expect(loopback).toMatchObject({ status: "failed", noAnswer: "refused" });
    const byName = await sendAttempt(
      webhook(`http://localhost:${port}/x`),
      payload(),
      1,
      effectsWith(globalThis.fetch),
      NOTHING_ALLOWED,
    );
    expect(byName).toMatchObject({ status: "failed", noAnswer: "refused" });
    expect(calls).toHaveLength(0);
    expect(receiver.received).toHaveLength(0);
  });

  test("a hostname that resolves inside is refused, and so is one with any address inside", async () => {
    const { calls, fetcher } = recordingFetch();
    for (const addresses of [
      ["127.0.0.1"],
      ["10.0.0.1"],
      ["169.254.169.254"],
      ["::1"],
      ["::ffff:10.0.0.1"],
      ["93.184.216.34", "192.168.0.1"],
      ["2606:4700::1", "fd00::1"],
    ]) {
      const outcome = await sendAttempt(
        webhook("https://hooks.example.test/x"),
        payload(),
        1,
        effectsWith(fetcher, lookupTo(...addresses)),
        NOTHING_ALLOWED,
      );
      expect({ addresses, outcome }).toMatchObject({ outcome: { status: "failed", noAnswer: "refused" } });
      expect((outcome as any).error).toStartWith("destination.url resolves to a ");
    }
    expect(calls).toHaveLength(0);
  });

  test("the request goes to the checked address: Host and, for https, the TLS server name keep the hostname", async () => {
    const { calls, fetcher } = recordingFetch();
    const outcome = await sendAttempt(
      webhook("https://hooks.example.test:8443/x?y=1"),
      payload(),
      1,
      effectsWith(fetcher, lookupTo("93.184.216.34")),
      NOTHING_ALLOWED,
    );
    expect(outcome).toMatchObject({ status: "sent", httpStatus: 200 });
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toBe("https://93.184.216.34:8443/x?y=1");
    expect(calls[0].init.headers.host).toBe("hooks.example.test:8443");
    expect(calls[0].init.tls).toEqual({ serverName: "hooks.example.test" });
    expect(calls[0].init.redirect).toBe("manual");
    const v6 = recordingFetch();
    await sendAttempt(
      webhook("https://hooks.example.test/x"),
      payload(),
      1,
      effectsWith(v6.fetcher, lookupTo("2606:4700::1")),
      NOTHING_ALLOWED,
    );
    expect(v6.calls[0].url).toBe("https://[2606:4700::1]/x");
  });

  test("an allowed range lets a loopback receiver work, by address and by a name resolving to it", async () => {
    const before = receiver.received.length;
    const port = new URL(receiver.url).port;
    const direct = await sendAttempt(
      webhook(`${receiver.url}/direct`),
      payload(),
      1,
      effectsWith(globalThis.fetch),
      LOOPBACK_ALLOWED,
    );
    expect(direct).toMatchObject({ status: "sent", httpStatus: 200 });
    const named = await sendAttempt(
      webhook(`http://localhost:${port}/named`),
      payload(),
      1,
      effectsWith(globalThis.fetch, lookupTo("127.0.0.1")),
      LOOPBACK_ALLOWED,
    );
    expect(named).toMatchObject({ status: "sent" });
    const received = (await receiver.waitFor(before + 2)).slice(before);
    expect(received.map((r) => r.path)).toEqual(["/direct", "/named"]);
    expect(received[1].headers.get("host")).toBe(`localhost:${port}`);
  });

  test("https to a pinned address checks the certificate against the hostname, not the address", async () => {
    const tlsServer = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: CERT, key: KEY },
      fetch: (request) =>
        new Response(null, { status: request.headers.get("host")?.startsWith("hooks.example.test") ? 204 : 400 }),
    });
    try {
      // The fixture's certificate is trusted for this test only; everything else is what a send does.
      const trusting = ((url: string, init: any) =>
        fetch(url, { ...init, tls: { ...init.tls, ca: CERT } })) as unknown as typeof fetch;
      const send = (host: string) =>
        sendAttempt(
          webhook(`https://${host}:${tlsServer.port}/x`),
          payload(),
          1,
          effectsWith(trusting, lookupTo("127.0.0.1")),
          LOOPBACK_ALLOWED,
        );
      expect(await send("hooks.example.test")).toMatchObject({ status: "sent", httpStatus: 204 });
      expect(await send("other.example.test")).toMatchObject({
        status: "retry",
        httpStatus: null,
        noAnswer: "unreachable",
      });
    } finally {
      tlsServer.stop(true);
    }
  });

  test("a redirect is never followed, not even to an allowed receiver", async () => {
    const before = receiver.received.length;
    const bouncer = startReceiver(
      () => new Response(null, { status: 307, headers: { location: `${receiver.url}/bounced` } }),
    );
    try {
      const outcome = await sendAttempt(
        webhook(`${bouncer.url}/x`),
        payload(),
        1,
        effectsWith(globalThis.fetch),
        LOOPBACK_ALLOWED,
      );
      expect(outcome).toMatchObject({ status: "failed", httpStatus: 307 });
      await Bun.sleep(100);
      expect(receiver.received.length).toBe(before);
    } finally {
      bouncer.stop();
    }
  });
});

describe("the test route", () => {
  test("answers the status class and the time only: no status code, no body, a closed port is just unreachable", async () => {
    const t = await testServer(LOOPBACK_ALLOWED as Record<string, string>);
    const answers = [
      new Response("internal secret page", { status: 200 }),
      new Response("no_service", { status: 404 }),
    ];
    const receiver = startReceiver((_, index) => answers[index] ?? new Response("boom", { status: 503 }));
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const closedUrl = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    try {
      const key = t.key("team-route");
      const accountId = authenticate(t.ctx.control, key)?.accountId;
      expect(accountId).toBeDefined();
      const program = randomAddress();
      addProgramCounts(t.ctx.control, [{ accountId: accountId!, program, attempts: 1, lastSeen: Date.now() }]);
      const testOf = async (url: string) => {
        const created = await fetch(`${t.url}/v1/alerts`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ program, rule: "new_issue", destination: webhook(url) }),
        });
        expect(created.status).toBe(201);
        const { id } = (await created.json()) as { id: string };
        const response = await fetch(`${t.url}/v1/alerts/${id}/test`, {
          method: "POST",
          headers: { "x-api-key": key },
        });
        expect(response.status).toBe(200);
        const body = (await response.json()) as any;
        expect(AlertTestResultSchema.safeParse(body).success).toBe(true);
        expect(Object.keys(body).sort()).toEqual(["delivered", "delivery", "elapsedMs", "error", "result"]);
        expect(body.elapsedMs).toBeGreaterThanOrEqual(0);
        return body;
      };
      expect(await testOf(`${receiver.url}/ok`)).toMatchObject({ delivered: true, result: "2xx", error: null });
      const missing = await testOf(`${receiver.url}/missing`);
      expect(missing).toMatchObject({ delivered: false, result: "4xx" });
      expect(await testOf(`${receiver.url}/down`)).toMatchObject({ delivered: false, result: "5xx" });
      expect(await testOf(`${closedUrl}/x`)).toMatchObject({ delivered: false, result: "unreachable" });
      const all = JSON.stringify(missing);
      for (const leak of ["no_service", "404", "internal secret page"]) expect(all).not.toContain(leak);
    } finally {
      receiver.stop();
      await t.stop();
    }
  }, 60_000);

  test("a destination resolving inside reads refused; a timeout reads timeout", async () => {
    const ctx = await testContext();
    try {
      const accountId = "acc_ssrf_route";
      const program = randomAddress();
      addProgramCounts(ctx.control, [{ accountId, program, attempts: 1, lastSeen: Date.now() }]);
      const rule = createRule(
        ctx.control,
        accountId,
        { program, rule: "new_issue", destination: webhook("https://hooks.example.test/x") },
        Date.now(),
        ctx.config,
      );
      const { calls, fetcher } = recordingFetch();
      const refused = await sendTest(ctx, accountId, rule.id, effectsWith(fetcher, lookupTo("10.0.0.7")));
      expect(refused).toMatchObject({ delivered: false, result: "refused" });
      expect(JSON.stringify(refused)).not.toContain("10.0.0.7");
      expect(calls).toHaveLength(0);
      const slow = recordingFetch(() => {
        throw new DOMException("The operation timed out.", "TimeoutError");
      });
      expect(
        await sendTest(ctx, accountId, rule.id, effectsWith(slow.fetcher, lookupTo("93.184.216.34"))),
      ).toMatchObject({
        delivered: false,
        result: "timeout",
      });
    } finally {
      ctx.dispose();
    }
  });
});
