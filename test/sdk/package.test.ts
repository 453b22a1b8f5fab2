// The SDK as a package: `import { createTxray } from "txray/sdk"` works from a dapp that depends on
// txray (a real Node 20+ process and a real Bun process in a temp project whose node_modules/txray
// links to this package, as `npm i ../txray` does); the committed build in packages/sdk/dist is what
// `bun run build:sdk` produces now; packages/sdk is a package of its own (no runtime dependency, its
// version the root's, only the built files published); the browser bundle stays within 15 KB gzip; no server code
// (DuckDB, Elysia, sqlite, zod, the CLI) is reachable from src/sdk.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { type Localnet, startLocalnet } from "../../devkit/localnet";
import pkg from "../../package.json";
import { buildSdk, listFiles } from "../../scripts/build-sdk";
import { flushSpool } from "../../src/lake/flush-spool";
import { SDK_VERSION } from "../../src/sdk";
import { lakeRows, type TestServer, testServer } from "../helpers/server";

const ROOT = resolve(import.meta.dir, "../..");
const SDK_PACKAGE = join(ROOT, "packages/sdk");
const DIST = join(SDK_PACKAGE, "dist");
let fresh: string;

beforeAll(async () => {
  fresh = mkdtempSync(join(tmpdir(), "txray-sdk-build-"));
  await buildSdk(fresh);
}, 60_000);
afterAll(() => rmSync(fresh, { recursive: true, force: true }));

describe("the build", () => {
  test("packages/sdk/dist is up to date with src (run `bun run build:sdk` after changing the SDK)", () => {
    expect(listFiles(DIST)).toEqual(listFiles(fresh));
    for (const file of listFiles(fresh))
      expect(`${file}: ${readFileSync(join(DIST, file), "utf8")}`).toBe(
        `${file}: ${readFileSync(join(fresh, file), "utf8")}`,
      );
  });

  test("the browser bundle is at most 15 KB minified + gzip", () => {
    const gzip = Bun.gzipSync(readFileSync(join(DIST, "txray.min.js"))).length;
    expect(gzip).toBeLessThanOrEqual(15 * 1024);
  });

  test("sdkVersion follows package.json", () => {
    expect(SDK_VERSION).toBe(`txray-js/${pkg.version}`);
  });
});

describe("packages/sdk, the package a dapp installs", () => {
  const sdkPkg = JSON.parse(readFileSync(join(SDK_PACKAGE, "package.json"), "utf8"));

  test("its version is the root's (run `bun run build:sdk` after a version bump)", () => {
    expect(sdkPkg.version).toBe(pkg.version);
  });

  test("it has no runtime dependency; web3.js and kit are optional peers that accept what wallet adapters use", () => {
    expect(sdkPkg.dependencies).toBeUndefined();
    expect(sdkPkg.type).toBe("module");
    expect(sdkPkg.sideEffects).toBe(false);
    expect(sdkPkg.peerDependencies["@solana/web3.js"]).toBe("^1.95.0");
    expect(sdkPkg.peerDependenciesMeta).toEqual({
      "@solana/kit": { optional: true },
      "@solana/web3.js": { optional: true },
    });
  });

  test("every file its exports name is built, and it publishes only the built files and its README", () => {
    const targets = Object.values(sdkPkg.exports as Record<string, string | Record<string, string>>).flatMap(
      (target) => (typeof target === "string" ? [target] : Object.values(target)),
    );
    for (const target of targets) expect(`${target}: ${existsSync(join(SDK_PACKAGE, target))}`).toBe(`${target}: true`);
    const published = sdkPkg.files as string[];
    expect(published.every((entry) => entry.startsWith("dist/") || entry === "README.md")).toBe(true);
    expect(existsSync(join(SDK_PACKAGE, "README.md"))).toBe(true);
  });

  test("its declarations import no other package and name every relative import's .js file", () => {
    for (const file of listFiles(join(DIST, "types"))) {
      const text = readFileSync(join(DIST, "types", file), "utf8");
      for (const [, specifier] of text.matchAll(/\b(?:from|import\()\s*["']([^"']+)["']/g))
        expect(`${file}: ${specifier}`).toMatch(/: \.{1,2}\/.*\.js$/);
    }
  });
});

describe("no server code in the SDK", () => {
  // Value imports only (Bun's scanner drops `import type`): the SDK may reach its own modules and
  // three dependency-free shared ones, nothing else.
  const ALLOWED_SHARED = new Set([
    "src/shared/envelope-limits.ts",
    "src/shared/base58-encode.ts",
    "src/shared/retry-after.ts",
  ]);
  test("every module reachable from src/sdk/index.ts is in src/sdk or a dependency-free shared module", () => {
    const transpiler = new Bun.Transpiler({ loader: "ts" });
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const { path } of transpiler.scanImports(readFileSync(file, "utf8"))) {
        expect({ from: file.slice(ROOT.length + 1), path, relative: path.startsWith(".") }).toEqual({
          from: file.slice(ROOT.length + 1),
          path,
          relative: true,
        });
        const target = resolve(dirname(file), path.endsWith(".ts") ? path : `${path}.ts`);
        visit(target);
      }
    };
    visit(join(ROOT, "src/sdk/index.ts"));
    for (const file of seen) {
      const rel = file.slice(ROOT.length + 1);
      expect(rel.startsWith("src/sdk/") || ALLOWED_SHARED.has(rel) ? "ok" : rel).toBe("ok");
    }
  });

  test("the bundles name no server dependency", () => {
    for (const file of ["index.js", "txray.min.js"]) {
      const text = readFileSync(join(DIST, file), "utf8");
      for (const forbidden of ["duckdb", "elysia", "bun:sqlite", "sqlite", "zod", "bun:ffi", "node:crypto", "Bun."])
        expect(`${file} contains ${forbidden}: ${text.includes(forbidden)}`).toBe(
          `${file} contains ${forbidden}: false`,
        );
      expect(text).not.toMatch(/^import /m); // no static import at all: the SDK has no runtime dependency
    }
  });
});

describe("a dapp that depends on txray", () => {
  let chain: Localnet;
  let t: TestServer;
  let project: string;

  beforeAll(async () => {
    chain = await startLocalnet({ blockTimeMs: 0 });
    t = await testServer({ SOLANA_RPC_URL: chain.url });
    project = mkdtempSync(join(tmpdir(), "txray-dapp-"));
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "dapp", type: "module", private: true, dependencies: { txray: `file:${ROOT}` } }),
    );
    mkdirSync(join(project, "node_modules"));
    symlinkSync(ROOT, join(project, "node_modules/txray")); // what `npm i <path>` does
    symlinkSync(join(ROOT, "node_modules/@solana"), join(project, "node_modules/@solana")); // the dapp's own web3.js
  }, 60_000);
  afterAll(async () => {
    await t.stop();
    await chain.stop();
    rmSync(project, { recursive: true, force: true });
  });

  const DAPP = `
import { createTxray } from "txray/sdk";
import { Connection, Keypair, SystemProgram, Transaction } from "@solana/web3.js";
const [rpcUrl, secret] = process.argv.slice(2);
const txray = createTxray({ walletAdapter: "node-dapp" });  // key from the CLI config file, endpoint from TXRAY_ENDPOINT
const connection = txray.instrument(new Connection(rpcUrl, "confirmed"));
const payer = Keypair.fromSecretKey(Uint8Array.from(JSON.parse(secret)));
const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 2_000_000 }));
const sig = await connection.sendTransaction(tx, [payer]);
if (process.argv[4] === "forget-close") { console.log(JSON.stringify({ sig })); process.exitCode = 0; }
else await txray.close();
if (process.argv[4] !== "forget-close") console.log(JSON.stringify({ sig, runtime: typeof Bun === "undefined" ? "node " + process.version : "bun", stats: txray.stats() }));
`;

  const run = async (runtime: "node" | "bun", extra: string[] = []) => {
    writeFileSync(join(project, "dapp.mjs"), DAPP);
    const config = join(project, `xdg-${runtime}`);
    mkdirSync(join(config, "txray"), { recursive: true });
    writeFileSync(join(config, "txray/config.json"), JSON.stringify({ apiKey: t.key(`dapp-${runtime}`) }));
    const payer = (await import("@solana/web3.js")).Keypair.generate();
    chain.airdrop(payer.publicKey.toBase58(), 1_000_000_000);
    const env = { PATH: process.env.PATH!, HOME: project, XDG_CONFIG_HOME: config, TXRAY_ENDPOINT: t.url };
    const child = Bun.spawn(
      [
        runtime === "node" ? "node" : process.execPath,
        "dapp.mjs",
        chain.url,
        JSON.stringify([...payer.secretKey]),
        ...extra,
      ],
      { cwd: project, env, stdout: "pipe", stderr: "pipe" },
    );
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    return JSON.parse(out.trim().split("\n").pop()!);
  };

  test("node: a script that forgets close() still delivers what it queued before exiting", async () => {
    const { sig } = await run("node", ["forget-close"]);
    await t.server.spool!.seal();
    await flushSpool(t.ctx);
    expect((await lakeRows(t.ctx, "sig, wallet_adapter")).filter((row: any) => row.sig === sig)).toEqual([
      { sig, wallet_adapter: "node-dapp" },
    ]);
  }, 60_000);

  for (const runtime of ["node", "bun"] as const) {
    test(`${runtime}: import { createTxray } from "txray/sdk" reports a send, with the key from the CLI config file`, async () => {
      const result = await run(runtime);
      expect(result.runtime).toStartWith(runtime);
      expect(result.stats).toMatchObject({ sent: 1, queued: 0, dropped: 0, rejected: 0 });
      expect(typeof result.sig).toBe("string");
    }, 60_000);
  }
});
