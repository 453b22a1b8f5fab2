// GET /docs: a readable API reference rendered by Redoc from /openapi.json. The renderer is Redoc's
// standalone bundle from node_modules (the `redoc` npm package), served by this server: the page
// works offline and loads nothing from a CDN (the one image the bundle would fetch from its
// vendor's CDN, a logo in its footer, is pointed at this server's icon instead). GET /docs/api.md:
// the human-written reference the page links, as the repository has it.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { BROWSER_SECURITY_HEADERS, FAVICON_PATH } from "./web";

const require = createRequire(import.meta.url);
export const REDOC_BUNDLE_PATH = "/docs/redoc.standalone.js";
export const API_REFERENCE_PATH = "/docs/api.md";
const VENDOR_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";

let bundle: string | null = null;

export function redocBundle(): Response {
  bundle ??= readFileSync(require.resolve("redoc/bundles/redoc.standalone.js"), "utf8").replaceAll(
    VENDOR_LOGO,
    FAVICON_PATH,
  );
  return new Response(bundle, {
    headers: {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=3600",
      ...BROWSER_SECURITY_HEADERS,
    },
  });
}

/** docs/api.md as text (a link from the reference page: the prose next to the schemas). */
export function apiReferenceText(): Response {
  return new Response(Bun.file(join(import.meta.dir, "..", "..", "docs", "api.md")), {
    headers: {
      "content-type": "text/markdown; charset=utf-8",
      "cache-control": "no-cache",
      ...BROWSER_SECURITY_HEADERS,
    },
  });
}

/** The page's one inline script, allowed by its hash (no other inline script runs). */
const INIT_SCRIPT = `
    Redoc.init("/openapi.json", {
      hideDownloadButton: false,
      expandResponses: "200",
      jsonSampleExpandLevel: 3,
      theme: { typography: { fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", headings: { fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif" } } }
    }, document.getElementById("redoc"));
  `;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>txray API reference</title>
  <link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
  <style>body { margin: 0; }</style>
</head>
<body>
  <div id="redoc"></div>
  <script src="${REDOC_BUNDLE_PATH}"></script>
  <script>${INIT_SCRIPT}</script>
</body>
</html>
`;

/**
 * Nothing but this server (the bundle's vendor logo is rewritten to this server's icon). The one inline
 * script is the page's own, allowed by its hash; inline styles are the page's and Redoc's (styled-components
 * writes <style> elements); its search runs in a blob: worker.
 */
const CSP = [
  "default-src 'self'",
  `script-src 'self' 'sha256-${createHash("sha256").update(INIT_SCRIPT).digest("base64")}' blob:`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join("; ");

export function docsPage(): Response {
  return new Response(PAGE, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": CSP,
      ...BROWSER_SECURITY_HEADERS,
    },
  });
}
