// `bun run build:sdk`: builds the SDK's published files from src/sdk into dist/sdk (committed, so a
// dapp depending on txray by path or git gets working files without a build step, and Node, which
// cannot import TypeScript, gets plain ESM):
//   dist/sdk/index.js      ESM for Node ≥ 20 and dapp bundlers (the package's `txray/sdk`)
//   dist/sdk/txray.min.js  minified ESM for browsers (`txray/sdk/browser`, ≤ 15 KB gzip)
//   dist/sdk/types/        TypeScript declarations
// test/sdk/package.test.ts rebuilds into a temp dir and fails when the committed files are stale.
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const ENTRY = join(ROOT, "src/sdk/index.ts");

async function bundle(outDir: string, name: string, minify: boolean) {
  const result = await Bun.build({
    entrypoints: [ENTRY],
    target: "browser",
    format: "esm",
    minify,
    sourcemap: "none",
    naming: name,
    outdir: outDir,
  });
  if (!result.success) throw new AggregateError(result.logs, "SDK build failed");
}

export async function buildSdk(outDir = join(ROOT, "dist/sdk")): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await bundle(outDir, "index.js", false);
  await bundle(outDir, "txray.min.js", true);
  const tsconfig = join(outDir, "tsconfig.types.json");
  await Bun.write(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        target: "ESNext",
        module: "ESNext",
        moduleResolution: "bundler",
        lib: ["ESNext", "DOM"],
        strict: true,
        declaration: true,
        emitDeclarationOnly: true,
        skipLibCheck: true,
        types: [],
        rootDir: join(ROOT, "src"),
        outDir: join(outDir, "types"),
      },
      files: [ENTRY],
    }),
  );
  const tsc = Bun.spawnSync(["bunx", "tsc", "-p", tsconfig], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  rmSync(tsconfig);
  if (tsc.exitCode !== 0) throw new Error(`declarations failed: ${tsc.stdout.toString()}${tsc.stderr.toString()}`);
}

/** Every file under `dir`, relative, sorted. */
export function listFiles(dir: string, prefix = ""): string[] {
  return readdirSync(dir)
    .flatMap((name) =>
      statSync(join(dir, name)).isDirectory() ? listFiles(join(dir, name), `${prefix}${name}/`) : [`${prefix}${name}`],
    )
    .sort();
}

if (import.meta.main) {
  await buildSdk(process.argv[2] ? resolve(process.argv[2]) : undefined);
  const min = Bun.file(join(ROOT, "dist/sdk/txray.min.js"));
  const gzip = Bun.gzipSync(new Uint8Array(await min.arrayBuffer())).length;
  console.log(`dist/sdk built: txray.min.js ${min.size} bytes, ${gzip} bytes gzip`);
}
