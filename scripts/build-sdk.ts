// `bun run build:sdk`: builds the SDK's package, packages/sdk (`@txray/sdk`), from src/sdk into
// packages/sdk/dist (committed, so a dapp depending on it by path or git gets working files without a
// build step, and Node, which cannot import TypeScript, gets plain ESM):
//   index.js      ESM for Node ≥ 20 and dapp bundlers (`@txray/sdk`, and the repository's `txray/sdk`)
//   txray.min.js  minified ESM for browsers (`@txray/sdk/browser`, ≤ 15 KB gzip)
//   types/        TypeScript declarations, whose relative imports name their `.js` file so that
//                 every moduleResolution (node16, nodenext, bundler) follows them
// It also copies the root package.json's version into packages/sdk/package.json.
// test/sdk/package.test.ts rebuilds into a temp dir and fails when the committed files are stale.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const ENTRY = join(ROOT, "src/sdk/index.ts");
export const SDK_PACKAGE = join(ROOT, "packages/sdk");

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

/** `from "./x"` → `from "./x.js"` in every declaration file: ESM resolution needs the file's name. */
function addJsExtensions(dir: string): void {
  for (const file of listFiles(dir)) {
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    const fixed = text.replace(/(\bfrom\s+|\bimport\s*\(\s*)(["'])(\.{1,2}\/[^"']*?)(?<!\.js)\2/g, "$1$2$3.js$2");
    if (fixed !== text) writeFileSync(path, fixed);
  }
}

/** packages/sdk/package.json's version, set to the root package.json's. */
export function syncSdkPackageVersion(): void {
  const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
  const path = join(SDK_PACKAGE, "package.json");
  const text = readFileSync(path, "utf8");
  writeFileSync(path, text.replace(/^( {2}"version": )"[^"]*"/m, `$1${JSON.stringify(version)}`));
}

export async function buildSdk(outDir = join(SDK_PACKAGE, "dist")): Promise<void> {
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
  addJsExtensions(join(outDir, "types"));
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
  const outDir = process.argv[2] ? resolve(process.argv[2]) : join(SDK_PACKAGE, "dist");
  await buildSdk(outDir);
  if (!process.argv[2]) syncSdkPackageVersion();
  const min = Bun.file(join(outDir, "txray.min.js"));
  const gzip = Bun.gzipSync(new Uint8Array(await min.arrayBuffer())).length;
  console.log(`${outDir} built: txray.min.js ${min.size} bytes, ${gzip} bytes gzip`);
}
