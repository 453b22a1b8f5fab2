// The transaction page in a real Chromium for recorded mainnet transactions (a Jupiter route success
// with address lookup tables, a failed Raydium AMM v4 swap) served by a recorded RPC on loopback: the
// page shows the same fee, accounts (signer, writable, lookup table), SOL and token balance changes
// as the recorded `meta`, instructions numbered as Solana Explorer numbers them with IDL-decoded
// arguments, and the raw JSON; the story, the call stack and the chain record give a failing
// instruction the same Explorer number, as do the MCP and Slack texts. Screenshots go to
// test/artifacts/. Also: GET /v1/tx/{sig}'s bad and unknown input.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { answerMessage } from "../../src/chat/blocks";
import { run } from "../../src/cli/commands";
import { summarize, summaryText } from "../../src/contract";
import { encodeBase58 } from "../../src/shared/base58";
import { recordedTransaction, startRecordedRpc } from "../helpers/recorded-rpc";
import { type TestServer, testServer } from "../helpers/server";
import { ARTIFACTS, launchBrowser } from "./support";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "mainnet");
/** A recorded base64 `getTransaction` answer and its signature (the first 64 bytes after the count). */
function recordedWire(file: string): { sig: string; result: any } {
  const result = JSON.parse(readFileSync(join(FIXTURES, file), "utf8")).result;
  return { sig: encodeBase58(Buffer.from(result.transaction[0], "base64").subarray(1, 65)), result };
}
const jupiter = recordedWire("09_sava_getTransaction_jupiter_route_success.json"); // v0, an address lookup table
const raydium = recordedWire("11_sava_getTransaction_failed_raydium_amm_v4_custom30_slippage.json"); // custom 30
// pump.fun buy (top-level index 4) whose second call, a System transfer, fails: Explorer's #5.2.
const pumpfun = recordedTransaction("27_");
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  rpc = startRecordedRpc([jupiter, raydium, pumpfun]);
  [t, browser] = await Promise.all([testServer({ SOLANA_RPC_URL: rpc.url }), launchBrowser()]);
  const quiet = { stdout: () => {}, stderr: () => {}, env: { TXRAY_DATA_DIR: t.ctx.config.dataDir } };
  for (const [program, file] of [
    ["JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4", "04_idl_jupiter_v6_legacy.json"],
    ["675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8", "06_idl_raydium_amm_v4_shank.json"],
  ])
    expect(await run(["idl", "add", program, join(FIXTURES, file)], quiet)).toBe(0);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
  rpc?.stop();
});

/** Lamports as the page writes SOL: exact, trailing zeros dropped, a sign on a change. */
function sol(lamports: number, signed = false): string {
  const abs = Math.abs(lamports);
  const fraction = String(abs % 1e9)
    .padStart(9, "0")
    .replace(/0+$/, "");
  const text = `${Math.floor(abs / 1e9).toLocaleString("en-US")}${fraction ? `.${fraction}` : ""}`;
  return `${lamports < 0 ? "−" : signed && lamports > 0 ? "+" : ""}${text}`;
}

async function openRecord(sig: string): Promise<Page & { errors: string[] }> {
  const page = (await browser.context.newPage()) as Page & { errors: string[] };
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error.message));
  await page.goto(`${t.url}/tx/${sig}`);
  await page.waitForSelector(".tx-record .tx-instructions", { timeout: 15_000 });
  return page;
}

/** What the recorded meta says, independently of txray's decoder: the account list and its balances. */
function recordedAccounts(result: any, staticKeys: string[]) {
  const loaded = [...result.meta.loadedAddresses.writable, ...result.meta.loadedAddresses.readonly];
  return [...staticKeys, ...loaded].map((address, i) => ({
    address,
    change: sol(result.meta.postBalances[i] - result.meta.preBalances[i], true),
    post: sol(result.meta.postBalances[i]),
    fromTable: i >= staticKeys.length,
  }));
}

async function pageAccounts(page: Page) {
  return await page.locator(".tx-accounts tbody tr").evaluateAll((rows) =>
    rows.map((row) => {
      const cells = row.querySelectorAll("td");
      return {
        address: row.getAttribute("data-account"),
        change: cells[3].textContent,
        post: cells[4].textContent,
        fromTable: cells[2].textContent!.includes("lookup table"),
      };
    }),
  );
}

/** Static account keys of a base64 v0 transaction (compact-u16 counts below 128 here). */
function staticKeysOf(result: any): { keys: string[]; signers: number } {
  const bytes = Buffer.from(result.transaction[0], "base64");
  let offset = 1 + bytes[0] * 64 + 1; // signatures, version byte
  const signers = bytes[offset];
  offset += 3;
  const count = bytes[offset++];
  const keys = Array.from({ length: count }, (_, i) =>
    encodeBase58(bytes.subarray(offset + i * 32, offset + (i + 1) * 32)),
  );
  return { keys, signers };
}

test("a Jupiter route success: fee, accounts with a lookup table, balances and decoded Route arguments", async () => {
  const page = await openRecord(jupiter.sig);
  const { meta } = jupiter.result;
  const { keys, signers } = staticKeysOf(jupiter.result);
  expect(await page.locator('[data-field="fee"]').textContent()).toBe(`${sol(meta.fee)} SOL`);
  expect(await page.locator('[data-field="compute"]').textContent()).toContain(
    `${meta.computeUnitsConsumed.toLocaleString("en-US")} used`,
  );
  expect(await page.locator(".tx-record .facts").first().textContent()).toContain(
    `cost units ${meta.costUnits.toLocaleString("en-US")}`,
  );
  expect(await pageAccounts(page)).toEqual(recordedAccounts(jupiter.result, keys));
  expect(await page.locator(".tx-accounts .badge", { hasText: "signer" }).count()).toBe(signers);
  // Token balances: one row per token account, with the recorded change in whole tokens.
  const tokens = await page
    .locator(".tx-tokens tbody tr")
    .evaluateAll((rows) =>
      rows.map((r) => [r.getAttribute("data-token-account"), r.querySelectorAll("td")[3].textContent]),
    );
  const allKeys = [...keys, ...meta.loadedAddresses.writable, ...meta.loadedAddresses.readonly];
  const expected = meta.postTokenBalances.map((post: any) => {
    const pre = meta.preTokenBalances.find((p: any) => p.accountIndex === post.accountIndex);
    const change = BigInt(post.uiTokenAmount.amount) - BigInt(pre.uiTokenAmount.amount);
    const decimals = post.uiTokenAmount.decimals;
    const whole = (Math.abs(Number(change)) / 10 ** decimals).toFixed(decimals).replace(/\.?0+$/, "");
    return [allKeys[post.accountIndex], change === 0n ? "0" : `${change > 0n ? "+" : "−"}${whole}`];
  });
  expect(tokens).toEqual(expected);
  // Instructions numbered as Solana Explorer numbers them, the inner ones under their parent.
  const numbers = await page.locator(".tx-ix .ix-number").allTextContents();
  expect(numbers.filter((n) => !n.includes("."))).toEqual(["#1", "#2", "#3", "#4", "#5", "#6", "#7"]);
  expect(numbers).toContain("#6.6");
  const route = page.locator('[data-ix="6"]');
  expect(await route.locator(".ix-name").first().textContent()).toBe("Route");
  expect(await route.locator(".ix-args").first().textContent()).toContain("slippageBps15");
  expect(await page.locator(".raw-json pre").textContent()).toContain(
    `"computeUnitsConsumed": ${meta.computeUnitsConsumed}`,
  );
  expect(page.errors).toEqual([]);
  await page.screenshot({ path: join(ARTIFACTS, "tx-record-jupiter.png"), fullPage: true });
  await page.close();
});

test("a failed Raydium swap: the error, the failing instruction #3 with its IDL arguments, the fee paid", async () => {
  const page = await openRecord(raydium.sig);
  const { meta } = raydium.result;
  const { keys } = staticKeysOf(raydium.result);
  expect(await page.locator(".story h2").textContent()).toContain("failed on chain");
  expect(await page.locator('[data-field="fee"]').textContent()).toBe(`${sol(meta.fee)} SOL`);
  expect(await pageAccounts(page)).toEqual(recordedAccounts(raydium.result, keys));
  const failed = page.locator(".tx-ix.failed");
  expect(await failed.getAttribute("data-ix")).toBe(String(meta.err.InstructionError[0] + 1));
  expect(await failed.locator(".ix-name").textContent()).toBe("SwapBaseIn");
  expect(await failed.locator(".ix-args").textContent()).toContain("minimumAmountOut");
  expect(await page.locator(".tx-record .facts").first().textContent()).toContain(
    '{"InstructionError":[2,{"Custom":30}]}',
  );
  // The story and the call stack number the failing instruction as the record does.
  await page.waitForSelector("li.frame.failing");
  expect(await failureNumbers(page)).toEqual({ where: "#3", stack: "#3", failedTopLevel: "#3" });
  expect(page.errors).toEqual([]);
  await page.screenshot({ path: join(ARTIFACTS, "tx-record-raydium-failed.png"), fullPage: true });
  await page.close();
});

/** The one number a failure's place carries on the page: the story's, the call stack's, the record's. */
async function failureNumbers(page: Page) {
  const where = (await page.locator(".story .ix-path").textContent())!;
  return {
    where: /^instruction (#[\d.]+)/.exec(where)?.[1] ?? where,
    stack: await page.locator("li.frame.failing .frame-number").textContent(),
    failedTopLevel: `#${await page.locator(".tx-ix.failed").getAttribute("data-ix")}`,
  };
}

test("a failure inside a call: story, call stack, chain record, MCP and Slack all say #5.2", async () => {
  const page = await openRecord(pumpfun.sig);
  await page.waitForSelector("li.frame.failing");
  expect(pumpfun.result.meta.err).toEqual({ InstructionError: [4, { Custom: 1 }] });
  expect(await failureNumbers(page)).toEqual({ where: "#5.2", stack: "#5.2", failedTopLevel: "#5" });
  expect(await page.locator(".story .ix-path").textContent()).toBe(
    "instruction #5.2, inside a call from pump.fun to System Program",
  );
  // The record's #5.2 is that System transfer.
  const inner = page.locator('.tx-inner [data-ix="5.2"] .ix-head').first();
  expect(await inner.textContent()).toContain("System Program");
  // Every frame of the stack carries the number the record gives the instruction of its program.
  const frames = await page
    .locator("li.frame")
    .evaluateAll((rows) =>
      rows.map((row) => [row.querySelector(".frame-number")!.textContent, row.querySelector("a")!.textContent]),
    );
  for (const [number, program] of frames)
    expect(await page.locator(`[data-ix="${number!.slice(1)}"] > .ix-head`).textContent()).toContain(program!);
  expect(page.errors).toEqual([]);
  await page.close();

  // The texts MCP and Slack send name it the same way.
  const why = (await t.get(`/v1/why/${pumpfun.sig}`)).body;
  expect(why.ixPath).toBe("4.1"); // the machine field stays 0-based, per call level
  const text = summaryText(summarize("why", why));
  expect(text).toContain("(instruction #5.2, CPI depth 1)");
  expect(text).toMatch(/✗ System Program .*\[#5\.2\]/);
  expect(text).not.toMatch(/\[4(\.\d)?\]|ix 4/);
  const slack = JSON.stringify(answerMessage("why", why));
  expect(slack).toContain("instruction #5.2, CPI depth 1");
  expect(slack).toContain("[#5.2]");
});

test("GET /v1/tx/{sig}: a malformed signature is 400, one the chain does not know is 404", async () => {
  for (const bad of ["abc", "0OIl".repeat(22), "%3Cscript%3E"]) {
    const answer = await t.get(`/v1/tx/${bad}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe("bad_request");
  }
  const unknown = await t.get(`/v1/tx/${"1".repeat(64)}`);
  expect(unknown.status).toBe(404);
  expect(unknown.body.error.code).toBe("not_found");
});
