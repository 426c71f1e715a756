import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../../platform/version";

/** A file the status page loads, served by the watcher itself (no CDN: the machine may be offline). */
export interface PageAsset {
  contentType: string;
  body: Buffer;
  /** A strong ETag: the content's sha-256. */
  etag: string;
}

/** Where the assets live: beside this module's source (the build copies no non-TypeScript file, so dist/ reads them here too). */
export const PAGE_ASSETS_DIR = join(PROJECT_ROOT, "src", "interfaces", "watch", "page", "assets");

const TYPES: Record<string, string> = {
  "status-page.js": "text/javascript; charset=utf-8",
  "status-page.css": "text/css; charset=utf-8",
  "favicon.svg": "image/svg+xml",
};

let loaded: Map<string, PageAsset> | undefined;

/** The assets by path (`/assets/status-page.js` …), read once. Throws when one is missing (a broken checkout). */
export function pageAssets(): ReadonlyMap<string, PageAsset> {
  if (!loaded) {
    const assets = new Map<string, PageAsset>();
    for (const [name, contentType] of Object.entries(TYPES)) {
      const body = readFileSync(join(PAGE_ASSETS_DIR, name));
      assets.set(`/assets/${name}`, { contentType, body, etag: `"${createHash("sha256").update(body).digest("base64url")}"` });
    }
    loaded = assets;
  }
  return loaded;
}
