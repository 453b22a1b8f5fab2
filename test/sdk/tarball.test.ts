// @txray/sdk as a dapp receives it: packages/sdk packed into a tarball (`bun pm pack`, the files npm
// publishes), unpacked into a clean temporary dapp's node_modules/@txray/sdk (what `npm i ./tgz`
// does for a package without runtime dependencies; no registry), then bundled by esbuild and by Vite
// from a main.ts that uses it as docs/sdk.md shows. Both bundles hold the SDK's code and nothing of the
// server. Are the Types Wrong? checks the same tarball: its only finding is that CommonJS cannot
// `require` it, which is so on purpose (ESM only, docs/sdk.md).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build as esbuild } from "esbuild";
import { build as vite } from "vite";

const ROOT = resolve(import.meta.dir, "../..");
const ATTW = join(ROOT, "node_modules/@arethetypeswrong/cli/dist/index.js");
const HOOK_MS = 30_000;
/** Present in the SDK's code whatever the bundler does with names: its request path and settings. */
const SDK_MARKERS = ["/v1/ingest", "TXRAY_ENDPOINT", "TXRAY_API_KEY"];
/** The server's dependencies and runtime: none of it may reach a dapp's bundle. */
const SERVER_MARKERS = ["duckdb", "bun:sqlite", "elysia", "zod", "litesvm", "@modelcontextprotocol"];

/** The kit quick start of docs/sdk.md, with a stand-in for kit's RPC (the dapp installs no kit). */
const MAIN = `
import { createTxray } from "@txray/sdk";

const RPC_URL = "https://rpc.example.com";
const kitRpc = { sendTransaction: (wire: string) => ({ send: async () => wire.slice(0, 8) }) };
const txray = createTxray({ endpoint: "https://txray.example.com", programs: ["YourProgram1111111111111111111111111111111"] });
const rpc = txray.instrumentRpc(kitRpc, RPC_URL);
export async function send(wire: string): Promise<string> {
  const signature = await rpc.sendTransaction(wire).send();
  await txray.flush();
  return signature;
}
export const stats = () => txray.stats();
`;

let work: string;
let tarball: string;
let dapp: string;
/** attw's run, started once the tarball exists, alongside the bundlers. */
let typesChecked: Promise<{ code: number; out: string; err: string }>;

function sizeOf(dir: string): number {
  return readdirSync(dir, { recursive: true })
    .map((name) => statSync(join(dir, String(name))))
    .filter((stat) => stat.isFile())
    .reduce((sum, stat) => sum + stat.size, 0);
}

async function run(command: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  const child = Bun.spawn(command, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code: await child.exited, out, err };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "txray-sdk-tarball-"));
  const packed = await run(
    [process.execPath, "pm", "pack", "--destination", work, "--quiet"],
    join(ROOT, "packages/sdk"),
  );
  expect(packed.code).toBe(0);
  tarball = join(work, readdirSync(work).find((name) => name.endsWith(".tgz")) ?? "");
  typesChecked = run([process.execPath, ATTW, tarball, "--format", "json", "--profile", "esm-only"], work);
  dapp = join(work, "dapp");
  const installed = join(dapp, "node_modules/@txray/sdk");
  mkdirSync(installed, { recursive: true });
  writeFileSync(
    join(dapp, "package.json"),
    JSON.stringify({ name: "dapp", private: true, type: "module", dependencies: { "@txray/sdk": `file:${tarball}` } }),
  );
  writeFileSync(join(dapp, "main.ts"), MAIN);
  // npm's tarballs hold the package under package/.
  expect((await run(["tar", "-xzf", tarball, "-C", installed, "--strip-components=1"], work)).code).toBe(0);
}, HOOK_MS);
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("the packed SDK installs into a dapp as a few files under 1 MB, without dependencies", () => {
  const installed = join(dapp, "node_modules/@txray/sdk");
  const files = readdirSync(installed, { recursive: true }).filter((name) =>
    statSync(join(installed, String(name))).isFile(),
  );
  expect(files.map(String)).toContain("dist/index.js");
  expect(files.map(String)).toContain("dist/types/sdk/index.d.ts");
  expect(readdirSync(dapp).sort()).toEqual(["main.ts", "node_modules", "package.json"]);
  expect(readdirSync(join(dapp, "node_modules"))).toEqual(["@txray"]); // nothing else came with it
  const bytes = sizeOf(installed);
  expect(bytes).toBeGreaterThan(10_000);
  expect(bytes).toBeLessThan(1_000_000);
});

test(
  "esbuild and Vite bundle the dapp: the SDK's code is in, nothing of the server",
  async () => {
    const [fromEsbuild, fromVite] = await Promise.all([
      esbuild({
        entryPoints: [join(dapp, "main.ts")],
        absWorkingDir: dapp,
        bundle: true,
        format: "esm",
        platform: "browser",
        write: false,
        logLevel: "silent",
      }).then((result) => result.outputFiles.map((file) => file.text).join("\n")),
      vite({
        root: dapp,
        configFile: false,
        logLevel: "silent",
        cacheDir: join(work, "vite-cache"),
        build: {
          write: false,
          emptyOutDir: false,
          outDir: join(work, "vite-out"),
          lib: { entry: join(dapp, "main.ts"), formats: ["es"], fileName: "main" },
        },
      }).then((result) =>
        (Array.isArray(result) ? result : [result])
          .flatMap((bundle) => ("output" in bundle ? bundle.output : []))
          .map((chunk) => ("code" in chunk ? chunk.code : ""))
          .join("\n"),
      ),
    ]);
    for (const [bundler, code] of [
      ["esbuild", fromEsbuild],
      ["vite", fromVite],
    ]) {
      expect({ bundler, sdk: SDK_MARKERS.filter((marker) => code.includes(marker)) }).toEqual({
        bundler,
        sdk: SDK_MARKERS,
      });
      expect({ bundler, server: SERVER_MARKERS.filter((marker) => code.toLowerCase().includes(marker)) }).toEqual({
        bundler,
        server: [],
      });
      // Bundled, not left as an import the browser cannot resolve.
      expect({ bundler, bare: /from\s*["']@txray\/sdk["']/.test(code) }).toEqual({ bundler, bare: false });
    }
  },
  HOOK_MS,
);

test(
  "Are the Types Wrong? finds only the intended ESM-only finding in the tarball",
  async () => {
    const attw = await typesChecked;
    const report = JSON.parse(attw.out) as { analysis: { problems: Record<string, string>[] } };
    const problems = report.analysis.problems.map(
      ({ kind, entrypoint, resolutionKind }) => `${kind} ${entrypoint} ${resolutionKind}`,
    );
    // A CommonJS `require` of an ES module package, under node16's CommonJS resolution: ESM only on purpose.
    expect(problems.sort()).toEqual(["CJSResolvesToESM . node16-cjs", "CJSResolvesToESM ./browser node16-cjs"]);
    expect(attw.code).toBe(0); // the esm-only profile passes
  },
  HOOK_MS,
);
