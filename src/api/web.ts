// Serves the web app (src/web) from the read server: the bundle is built with Bun's bundler the
// first time a page or asset is asked for (so server start stays fast) and kept in memory (nothing
// is written or committed). Page paths (/, /p/…, /tx/…, /w/…) all answer the app's index.html; the
// app routes on the client. The Landing Score snapshot is served read-only from one fixed file
// under TXRAY_SNAPSHOTS_DIR: no path is ever built from the request.

import { join } from "node:path";
import { gzipSync } from "node:zlib";

const WEB_DIR = join(import.meta.dir, "..", "web");
/** Client-side routes: the server answers each with index.html. */
export const PAGE_PATHS = ["/", "/p/:program", "/tx/:sig", "/w/:program/:wallet"] as const;
export const ASSET_PREFIX = "/assets/";
export const LANDING_SCORE_PATH = "/snapshots/landing-score/latest.json";

export type WebAsset = { body: Uint8Array<ArrayBuffer>; gzip: Uint8Array<ArrayBuffer>; type: string };
export type WebBundle = { index: WebAsset; assets: Map<string, WebAsset> };

let building: Promise<WebBundle> | null = null;

function asset(text: string | Uint8Array<ArrayBuffer>, type: string): WebAsset {
  const body = typeof text === "string" ? new TextEncoder().encode(text) : text;
  return { body, gzip: new Uint8Array(gzipSync(body, { level: 9 })), type };
}

/** Builds the app once per process (memoised); a failed build is retried on the next request. */
export function webBundle(): Promise<WebBundle> {
  building ??= buildWebBundle().catch((error) => {
    building = null;
    throw error;
  });
  return building;
}

export async function buildWebBundle(): Promise<WebBundle> {
  const result = await Bun.build({
    entrypoints: [join(WEB_DIR, "index.html")],
    target: "browser",
    minify: true,
    publicPath: ASSET_PREFIX,
    naming: { entry: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
  });
  if (!result.success) throw new Error(`web build failed: ${result.logs.map(String).join("; ")}`);
  let index: WebAsset | null = null;
  const assets = new Map<string, WebAsset>();
  for (const output of result.outputs) {
    const name = output.path.replace(/^\.\//, "");
    const type = output.type || "application/octet-stream";
    const bytes = new Uint8Array(await output.arrayBuffer());
    if (name.endsWith(".html")) index = asset(bytes, "text/html; charset=utf-8");
    else assets.set(name, asset(bytes, type));
  }
  if (!index) throw new Error("web build produced no index.html");
  return { index, assets };
}

function respond(request: Request, file: WebAsset, cacheControl: string): Response {
  const gzip = (request.headers.get("accept-encoding") ?? "").includes("gzip");
  const headers: Record<string, string> = { "content-type": file.type, "cache-control": cacheControl, vary: "accept-encoding" };
  if (gzip) headers["content-encoding"] = "gzip";
  return new Response(gzip ? file.gzip : file.body, { headers });
}

/** index.html for every page path (never cached: it names the current hashed assets). */
export async function pageResponse(request: Request): Promise<Response> {
  const bundle = await webBundle();
  return respond(request, bundle.index, "no-cache");
}

/** A hashed asset by exact name (the only names served are the build's own outputs). */
export async function assetResponse(request: Request, name: string): Promise<Response | null> {
  const bundle = await webBundle();
  const file = bundle.assets.get(name);
  return file ? respond(request, file, "public, max-age=31536000, immutable") : null;
}

/** The latest Landing Score snapshot, or null when none was published. */
export async function landingScoreResponse(snapshotsDir: string): Promise<Response | null> {
  const file = Bun.file(join(snapshotsDir, "landing-score", "latest.json"));
  if (!(await file.exists())) return null;
  return new Response(file, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-cache" } });
}
