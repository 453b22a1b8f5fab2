// The SDK's declarations as a dapp's TypeScript reads them: a temp project whose
// node_modules/@txray/sdk links to packages/sdk (what `npm i ./packages/sdk` does) is type-checked by
// the repository's tsc under moduleResolution node16, nodenext and bundler, with skipLibCheck off, so
// that an error in the package's own .d.ts files counts and a type that silently became `any` fails
// its `@ts-expect-error`. Node resolves the same specifiers at run time. The Envelope type the SDK
// publishes (derived from the field table, without zod) is the type the zod schema validates.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { z } from "zod";
import type { Envelope as SdkEnvelope } from "../../src/sdk";
import type { envelopeSchema } from "../../src/shared/envelope";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
export type EnvelopeIsTheSchemasOutput = Expect<Equal<SdkEnvelope, z.output<typeof envelopeSchema>>>;

const ROOT = resolve(import.meta.dir, "../..");
/** The repository's own TypeScript (bunx in the temp project would fetch another). */
const TSC = join(ROOT, "node_modules/.bin/tsc");
let project: string;

const CONSUMER = `
import { createTxray, type Envelope, type Txray, type TxrayStats } from "@txray/sdk";
import { createTxray as createBrowserTxray } from "@txray/sdk/browser";

const txray: Txray = createTxray({ endpoint: "http://127.0.0.1:8790", walletAdapter: () => undefined });
const sent: number = txray.stats().sent;
// @ts-expect-error stats().sent is a number, not any
const sentAsText: string = txray.stats().sent;
const stats: TxrayStats = createBrowserTxray().stats();
const kind: Envelope["kind"] = "preflight";
// @ts-expect-error an envelope's kind is "send" or "preflight"
const unknownKind: Envelope["kind"] = "other";
// @ts-expect-error createTxray checks its options
createTxray({ privacy: "secret" });
export { kind, sent, sentAsText, stats, unknownKind };
`;

const RESOLUTIONS = [
  { module: "node16", moduleResolution: "node16" },
  { module: "nodenext", moduleResolution: "nodenext" },
  { module: "esnext", moduleResolution: "bundler" },
] as const;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "txray-sdk-types-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "dapp", type: "module", private: true }));
  mkdirSync(join(project, "node_modules/@txray"), { recursive: true });
  symlinkSync(join(ROOT, "packages/sdk"), join(project, "node_modules/@txray/sdk"));
  writeFileSync(join(project, "dapp.ts"), CONSUMER);
  for (const { module, moduleResolution } of RESOLUTIONS)
    writeFileSync(
      join(project, `tsconfig.${moduleResolution}.json`),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module,
          moduleResolution,
          lib: ["ES2022", "DOM"],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ["dapp.ts"],
      }),
    );
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

test("a dapp's tsc accepts @txray/sdk's declarations under node16, nodenext and bundler, and they are typed", async () => {
  const results = await Promise.all(
    RESOLUTIONS.map(async ({ moduleResolution }) => {
      const tsc = Bun.spawn([TSC, "-p", `tsconfig.${moduleResolution}.json`], {
        cwd: project,
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err, code] = await Promise.all([
        new Response(tsc.stdout).text(),
        new Response(tsc.stderr).text(),
        tsc.exited,
      ]);
      return { moduleResolution, code, output: `${out}${err}`.trim() };
    }),
  );
  expect(results).toEqual(RESOLUTIONS.map(({ moduleResolution }) => ({ moduleResolution, code: 0, output: "" })));
}, 30_000);

test("node resolves @txray/sdk and @txray/sdk/browser", async () => {
  const script = `
const [sdk, browser] = await Promise.all([import("@txray/sdk"), import("@txray/sdk/browser")]);
console.log(JSON.stringify([typeof sdk.createTxray, typeof browser.createTxray, sdk.SDK_VERSION === browser.SDK_VERSION]));
`;
  writeFileSync(join(project, "resolve.mjs"), script);
  const node = Bun.spawn(["node", "resolve.mjs"], { cwd: project, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(node.stdout).text(), new Response(node.stderr).text()]);
  expect({ out: out.trim(), err }).toEqual({ out: '["function","function",true]', err: "" });
});
