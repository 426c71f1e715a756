import { KeyGate, type KeyPolicy } from "./api-keys";
import { GeocodingIndexes, type FullIndexes, type SpatialIndexes } from "./geocoding-indexes";
import type { StreetRecord } from "./street-records";

/**
 * The emulator's own header on every geocoding answer (the Gisgraphy bodies are left as the spec
 * has them): `not-started` (no request has needed an index and the seed did not ask for them at
 * start), `building`, or `ready` (every index built). Address parsing needs no index and starts no
 * build, so it reads the state without changing it.
 */
export const INDEX_STATE_HEADER = "x-emulator-geocoding-indexes";

/** How far the index build is (INDEX_STATE_HEADER). */
export type IndexState = "not-started" | "building" | "ready";

/** The indexes could not be built: the request that needed them gets a 500. */
export class IndexBuildError extends Error {}

/**
 * What the geocoding service's mount builds once and every route of its table shares: the key
 * gate (quotas count across requests) and the indexes, built on the first request that needs them.
 */
export class GeocodingRuntime {
  readonly gate = new KeyGate();
  private readonly indexes: GeocodingIndexes;
  // Set once a build was asked for; a failed build is retried by the next request that needs it.
  private started = false;

  constructor(
    /** The service's key policy as it is now (the admin API and the seed may change it). */
    readonly keyPolicy: () => KeyPolicy,
    streets: () => StreetRecord[],
  ) {
    this.indexes = new GeocodingIndexes(streets);
  }

  /** Starts building every index without waiting for it. */
  build(): void {
    this.started = true;
    this.indexes.start();
  }

  // The first geocoding request starts the whole build; each request waits only for what it needs.

  /** The spatial indexes (reverse geocoding, geoloc, streets, forward geocoding). */
  spatial(): Promise<SpatialIndexes> {
    this.build();
    return this.indexes.spatial().catch(buildFailed);
  }

  /** Every index, the full-text one included. */
  full(): Promise<FullIndexes> {
    this.build();
    return this.indexes.full().catch(buildFailed);
  }

  /** How far the build is, for INDEX_STATE_HEADER. */
  indexState(): IndexState {
    return this.indexes.ready ? "ready" : this.started ? "building" : "not-started";
  }
}

function buildFailed(e: unknown): never {
  throw new IndexBuildError(`the geocoding indexes could not be built: ${(e as Error).message}`);
}
