// Serves the web app (src/web) from the read server: the bundle is built with Bun's bundler the
// first time a page or asset is asked for (so server start stays fast) and kept in memory (nothing
// is written or committed). Page paths (/, /p/…, /tx/…, /w/…, /i/…) all answer the app's index.html;
// the app routes on the client. The published Landing Score files (its static page, latest.json and
// the dated JSON and Parquet files, docs/publishing.md) are served read-only from
// TXRAY_SNAPSHOTS_DIR/landing-score/ by exact name: a request names a file only if it matches one of
// those names, so no other path is ever built from it.

import { join } from "node:path";
import { gzipSync } from "node:zlib";

const WEB_DIR = join(import.meta.dir, "..", "web");
/** Client-side routes: the server answers each with index.html. */
export const PAGE_PATHS = [
  "/",
  "/p/:program",
  "/tx/:sig",
  "/w/:program/:wallet",
  "/i/:fingerprint",
  "/issues/:program",
  "/alerts",
] as const;
export const ASSET_PREFIX = "/assets/";
export const LANDING_SCORE_PREFIX = "/landing-score/";
/** The names publish.ts writes: nothing else under the directory is served. */
const LANDING_SCORE_FILE = /^(?:index\.html|latest\.json|\d{4}-\d{2}-\d{2}\.(?:json|parquet))$/;
const LANDING_SCORE_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  json: "application/json; charset=utf-8",
  parquet: "application/vnd.apache.parquet",
};
/**
 * The page's own meta CSP, sent as a header too: it loads nothing, its script only re-sorts the table. The
 * header adds what a meta CSP cannot say (frame-ancestors).
 */
const LANDING_SCORE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'; form-action 'none'";

/**
 * The app loads its own bundle and talks to its own origin only: no inline script or style (the app sets
 * element styles through the CSSOM, which a CSP does not govern), no plugins, no <base>, never in a frame.
 */
const WEB_APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join("; ");

/** Sent with every page and file the browser-facing routes serve (with a CSP of the route's own). */
export const BROWSER_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/**
 * The site's icon (src/web/favicon.svg, bundled with the app) at a fixed path, and at /favicon.ico, which browsers ask
 * for by themselves.
 */
export const FAVICON_PATH = "/favicon.svg";

export async function faviconResponse(request: Request): Promise<Response | null> {
  const bundle = await webBundle();
  const icon = [...bundle.assets].find(([name]) => name.startsWith("favicon-") && name.endsWith(".svg"))?.[1];
  return icon ? respond(request, { ...icon, type: "image/svg+xml" }, "public, max-age=86400") : null;
}

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
  const headers: Record<string, string> = {
    "content-type": file.type,
    "cache-control": cacheControl,
    vary: "accept-encoding",
    "content-security-policy": WEB_APP_CSP,
    ...BROWSER_SECURITY_HEADERS,
  };
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

/** A published Landing Score file by name ("" = the page); null for any other name or one not published. */
export async function landingScoreResponse(snapshotsDir: string, name: string): Promise<Response | null> {
  const fileName = name === "" ? "index.html" : name;
  if (!LANDING_SCORE_FILE.test(fileName)) return null;
  const file = Bun.file(join(snapshotsDir, "landing-score", fileName));
  if (!(await file.exists())) return null;
  const extension = fileName.slice(fileName.lastIndexOf(".") + 1);
  const headers: Record<string, string> = {
    "content-type": LANDING_SCORE_TYPES[extension],
    "cache-control": "no-cache",
    ...BROWSER_SECURITY_HEADERS,
    // Public data by design: a page on any origin may read the leaderboard and its files.
    "access-control-allow-origin": "*",
  };
  if (extension === "html") headers["content-security-policy"] = LANDING_SCORE_CSP;
  return new Response(file, { headers });
}
