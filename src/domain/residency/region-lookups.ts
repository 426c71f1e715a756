import type { AzureRegion } from "./azure-regions";
import type { Geocoder } from "./geocoder";
import { pointAnswerOf } from "./geo-answers";
import type { GeoAnswer } from "./placement";

/**
 * The reverse geocoding of each region's point, once per region, started as soon as a read first
 * names the region rather than after the last read: at fleet scale placing waits for every
 * database's TDE configuration, and a lookup started then is a round trip (and the service's first
 * answer) added after the reads instead of under them. A lookup that fails is thrown where its
 * answer is awaited, not where it started (it is never left unhandled).
 */
export class RegionLookups {
  private readonly answers = new Map<string, Promise<GeoAnswer>>();

  constructor(
    private readonly geocoding: Pick<Geocoder, "reverseGeocode">,
    private readonly signal?: AbortSignal,
  ) {}

  /** Starts the region's lookup unless it has started. */
  start(region: AzureRegion): void {
    if (this.answers.has(region.name)) return;
    const point = { lat: region.latitude, lng: region.longitude };
    const answer = this.geocoding.reverseGeocode({ ...point, from: 1, to: 1 }, this.signal).then((res) => pointAnswerOf(res, point));
    // Awaited (and its failure thrown) by `answer`; until then a rejection is not an unhandled one.
    answer.catch(() => undefined);
    this.answers.set(region.name, answer);
  }

  /** The region's answer, from the lookup started before or one started now. */
  answer(region: AzureRegion): Promise<GeoAnswer> {
    this.start(region);
    return this.answers.get(region.name)!;
  }
}
