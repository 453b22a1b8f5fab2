// The bundled SDK in a real Chromium: a dapp page (its own origin) loads packages/sdk/dist/txray.min.js and a
// browser build of web3.js, instruments a Connection to the local chain and sends; the txray server
// (another origin: CORS) receives the envelopes through flush(), and through sendBeacon when the
// page is hidden (the page navigates away before any interval flush could run).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Keypair } from "@solana/web3.js";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { type Localnet, startLocalnet } from "../../devkit/localnet";
import { flushSpool } from "../../src/lake/flush-spool";
import { lakeRows, type TestServer, testServer } from "../helpers/server";

const ROOT = resolve(import.meta.dir, "../..");
let chain: Localnet;
let t: TestServer;
let site: ReturnType<typeof Bun.serve>;
let browser: BrowserContext;
let page: Page;
let profile: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  chain = await startLocalnet({ blockTimeMs: 0 });
  t = await testServer({ SOLANA_RPC_URL: chain.url });
  const web3 = await Bun.build({
    entrypoints: [join(import.meta.dir, "browser/web3-entry.ts")],
    target: "browser",
    format: "esm",
    minify: true,
  });
  if (!web3.success) throw new AggregateError(web3.logs);
  const web3Js = await web3.outputs[0].text();
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      const js = { headers: { "content-type": "text/javascript" } };
      if (path === "/")
        return new Response(Bun.file(join(import.meta.dir, "browser/page.html")), {
          headers: { "content-type": "text/html" },
        });
      if (path === "/txray.min.js") return new Response(Bun.file(join(ROOT, "packages/sdk/dist/txray.min.js")), js);
      if (path === "/web3.js") return new Response(web3Js, js);
      return new Response("not found", { status: 404 });
    },
  });
  profile = mkdtempSync(join(tmpdir(), "txray-chromium-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  page = await browser.newPage();
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  const payer = Keypair.generate();
  chain.airdrop(payer.publicKey.toBase58(), 5_000_000_000);
  const query = new URLSearchParams({
    key: t.key("browser-dapp"),
    txray: t.url,
    rpc: chain.url,
    secret: JSON.stringify([...payer.secretKey]),
  });
  await page.goto(`http://127.0.0.1:${site.port}/?${query}`);
  await page.waitForFunction(() => document.getElementById("status")?.textContent === "ready");
}, 60_000);

afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  await t?.stop();
  await chain?.stop();
  rmSync(profile, { recursive: true, force: true });
});

/** Lake rows for these signatures, waiting (bounded) for the beacon to arrive. */
async function rowsFor(sigs: string[]) {
  for (let i = 0; i < 100; i++) {
    await t.server.spool!.seal();
    await flushSpool(t.ctx);
    const rows = (await lakeRows(t.ctx, "sig, kind, rpc_label, wallet_adapter, preflight_error")).filter((row: any) =>
      sigs.includes(row.sig),
    );
    if (rows.length >= sigs.length) return rows;
    await Bun.sleep(100);
  }
  return [];
}

describe("the bundled SDK in Chromium", () => {
  test("flush(): envelopes cross origins to the server and are accepted", async () => {
    const sig = await page.evaluate(() => (window as any).dapp.sendLanded());
    const refused = await page.evaluate(() => (window as any).dapp.sendRefused());
    expect(refused.thrown).toBe("SendTransactionError"); // the dapp sees web3.js's own error
    await page.evaluate(() => (window as any).dapp.flush());
    const stats = await page.evaluate(() => (window as any).dapp.stats());
    expect(stats).toMatchObject({ sent: 2, queued: 0, dropped: 0, rejected: 0 });
    const rows = await rowsFor([sig]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ sig, kind: "send", rpc_label: "localhost", wallet_adapter: "Phantom" });
    expect(pageErrors).toEqual([]);
  }, 30_000);

  test("hidden (visibilitychange): what is queued leaves by sendBeacon while the page stays", async () => {
    const sig = await page.evaluate(() => (window as any).dapp.sendLanded());
    await page.waitForFunction(() => (window as any).dapp.stats().queued === 1);
    // Headless Chromium never hides a page by itself: report "hidden" as a tab switch would.
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
      document.dispatchEvent(new Event("visibilitychange"));
    });
    const rows = await rowsFor([sig]);
    expect(rows).toHaveLength(1);
    expect(await page.evaluate(() => (window as any).dapp.stats())).toMatchObject({ queued: 0, beaconed: 1 });
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "visible" });
    });
  }, 30_000);

  test("page hide: what is queued leaves by sendBeacon", async () => {
    const sig = await page.evaluate(() => (window as any).dapp.sendLanded());
    // Let the SDK build its envelope (off the send path), then leave the page.
    await page.waitForFunction(() => (window as any).dapp.stats().queued === 1);
    await t.server.spool!.seal();
    await flushSpool(t.ctx);
    expect((await lakeRows(t.ctx, "sig")).filter((row: any) => row.sig === sig)).toHaveLength(0); // nothing sent yet
    await page.goto("about:blank");
    const rows = await rowsFor([sig]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ sig, kind: "send", wallet_adapter: "Phantom" });
  }, 30_000);
});
