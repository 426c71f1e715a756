import KDBush from "kdbush";
import MiniSearch from "minisearch";
import { nameKey, nameTokens } from "./name-keys";
import { loadPlaces, type PlaceTable } from "./place-data";
import type { StreetRecord } from "./street-records";
import { timeSlicer, type TimeSlicer } from "./time-slicer";

/** The places, their spatial index and the name lookup: what reverse geocoding and geoloc need. */
export interface SpatialIndexes {
  places: PlaceTable;
  /** kdbush over [lng, lat]; an item's id is its place id. */
  kd: KDBush;
  /** Each place's name key (see `nameKey`), by place id. */
  keys: string[];
  /** Name key → place ids, for resolving a parsed city. */
  byName: Map<string, number[]>;
  streets: StreetRecord[];
}

/** A document of the full-text index: a distinct place name key (id < textKeys.length), or a seed street. */
interface TextDocument {
  id: number;
  name: string;
  zip?: string;
  isIn?: string;
}

/** The spatial indexes plus the full-text index over place and street names and street postcodes. */
export interface FullIndexes extends SpatialIndexes {
  /**
   * Full text over the distinct place name keys (many places share a name: 118 000 keys for
   * 135 000 places) and the seeded streets. A hit on key document `k` stands for every place in
   * `byName.get(textKeys[k])`; document `textKeys.length + j` is seeded street `j`.
   */
  text: MiniSearch<TextDocument>;
  textKeys: string[];
}

/** How long each stage of the build took, in ms of wall time. */
export interface BuildFigures {
  placesMs: number;
  spatialMs: number;
  /** From the start until reverse geocoding could answer. */
  spatialReadyMs: number;
  textMs: number;
  totalMs: number;
}

/**
 * The geocoding service's indexes, built once, on first use (or when `start()` is called), in
 * time slices that yield to the event loop: the emulator's other APIs keep answering while they build.
 * The spatial part (places, kd-tree, names) is ready first; the full-text index follows, so
 * reverse geocoding does not wait for it. A failed build is forgotten, so the next call retries.
 */
export class GeocodingIndexes {
  private spatialBuild?: Promise<SpatialIndexes>;
  private fullBuild?: Promise<FullIndexes>;
  private started = 0;
  readonly figures: Partial<BuildFigures> = {};

  constructor(
    private readonly streets: () => StreetRecord[],
    private readonly slicer: TimeSlicer = timeSlicer(),
  ) {}

  /** Starts building everything without waiting for it. */
  start(): void {
    this.full().catch(() => undefined);
  }

  /** Whether the full build has finished. */
  get ready(): boolean {
    return this.figures.totalMs !== undefined;
  }

  /** The spatial indexes, building them if needed. */
  spatial(): Promise<SpatialIndexes> {
    if (!this.spatialBuild) {
      this.started = performance.now();
      this.spatialBuild = this.buildSpatial().catch((e: unknown) => {
        this.spatialBuild = undefined;
        throw e;
      });
    }
    return this.spatialBuild;
  }

  /** Every index, building them if needed. */
  full(): Promise<FullIndexes> {
    if (!this.fullBuild) {
      this.fullBuild = this.spatial()
        .then((s) => this.buildText(s))
        .catch((e: unknown) => {
          this.fullBuild = undefined;
          throw e;
        });
    }
    return this.fullBuild;
  }

  private async buildSpatial(): Promise<SpatialIndexes> {
    const t0 = performance.now();
    const places = await loadPlaces(this.slicer);
    const t1 = performance.now();
    this.figures.placesMs = t1 - t0;
    const kd = new KDBush(places.count, 64, Float64Array);
    const byName = new Map<string, number[]>();
    const keys = new Array<string>(places.count);
    for (let i = 0; i < places.count; i++) {
      kd.add(places.lng[i], places.lat[i]);
      const key = nameKey(places.name[i]);
      keys[i] = key;
      const ids = byName.get(key);
      if (ids) ids.push(i);
      else byName.set(key, [i]);
      if (this.slicer.due()) await this.slicer.pause();
    }
    // One sort of all points (~0.1 s): kdbush cannot be finished in slices.
    kd.finish();
    this.figures.spatialMs = performance.now() - t1;
    this.figures.spatialReadyMs = performance.now() - this.started;
    return { places, kd, keys, byName, streets: this.streets() };
  }

  private async buildText(s: SpatialIndexes): Promise<FullIndexes> {
    const t0 = performance.now();
    const text = new MiniSearch<TextDocument>({
      fields: ["name", "zip", "isIn"],
      idField: "id",
      // Documents hold name keys already (computed once, with the spatial index): splitting them is
      // all indexing needs. Queries are keyed the same way. No per-term processing either way.
      tokenize: (key) => (key ? key.split(" ") : []),
      processTerm: (term) => term,
      searchOptions: { tokenize: (q) => nameTokens(q), boost: { name: 2, zip: 1.5, isIn: 0.5 } },
    });
    const textKeys = [...s.byName.keys()];
    for (let id = 0; id < textKeys.length; id++) {
      text.add({ id, name: textKeys[id] });
      if (this.slicer.due()) await this.slicer.pause();
    }
    s.streets.forEach((st, k) => {
      text.add({
        id: textKeys.length + k,
        name: nameKey(st.name),
        zip: (st.zipCodes ?? []).map(nameKey).join(" "),
        isIn: nameKey(st.city),
      });
    });
    this.figures.textMs = performance.now() - t0;
    this.figures.totalMs = performance.now() - this.started;
    return { ...s, text, textKeys };
  }
}
