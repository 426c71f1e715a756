import { distance } from "geokdbush";
import type { SolrResponseDto } from "../../../services/geocoding/types";
import { placeHit, streetHit } from "./answer-shapes";
import type { FullIndexes } from "./geocoding-indexes";
import { pageOf, type PageWindow } from "./paging";

export interface FulltextParams {
  q: string;
  /** Every word must match (AND), else any (OR). */
  allWords: boolean;
  /** ISO alpha-2: only hits in this country. */
  country?: string;
  /** Only hits within `radiusM` metres of this point; nearer ones score higher. */
  near?: { lat: number; lng: number; radiusM: number };
  /** Prefix search on the last word (auto completion). */
  suggest: boolean;
}

export interface FulltextAnswer {
  /** Hits in all, whatever the page. */
  numFound: number;
  maxScore?: number;
  result: SolrResponseDto[];
}

/**
 * Places and seeded streets by name (and streets by postcode), case and accents ignored. A place's
 * score grows with its population, so "Paris" finds the French capital before Paris, Texas; with
 * a point, hits outside the radius are dropped and nearer ones promoted. Best first.
 */
export function fulltextSearch(idx: FullIndexes, p: FulltextParams, page: PageWindow): FulltextAnswer {
  const { places, streets } = idx;
  const n = places.count;
  const scored = rankedMatches(idx, p);
  return {
    numFound: scored.length,
    maxScore: scored[0]?.score,
    result: pageOf(scored, page).map(({ id, score }) => (id < n ? placeHit(places, id, score) : streetHit(streets[id - n], score))),
  };
}

/**
 * Every hit of a full-text query, best first, as document ids: a place's id (below
 * `places.count`), or `places.count` plus a seeded street's position.
 */
export function rankedMatches(idx: FullIndexes, p: FulltextParams): { id: number; score: number }[] {
  const { places, streets } = idx;
  const n = places.count;
  const countryOf = (id: number) => (id < n ? places.country[id] : streets[id - n]?.countryCode);
  const pointOf = (id: number): [number, number] =>
    id < n ? [places.lng[id], places.lat[id]] : [streets[id - n].lng, streets[id - n].lat];
  const kmFrom = (id: number) => {
    const [lng, lat] = pointOf(id);
    return distance(p.near!.lng, p.near!.lat, lng, lat);
  };
  const radiusKm = p.near ? p.near.radiusM / 1000 : 0;
  const raw = idx.text.search(p.q, {
    combineWith: p.allWords ? "AND" : "OR",
    prefix: p.suggest ? (_term: string, i: number, terms: string[]) => i === terms.length - 1 : false,
    fuzzy: false,
    boostDocument: (id: number) => (id < n ? 1 + Math.log10(1 + places.population[id]) / 3 : 1.5),
    filter: (r) => (!p.country || countryOf(r.id as number) === p.country) && (!p.near || kmFrom(r.id as number) <= radiusKm),
  });
  const popOf = (id: number) => (id < n ? places.population[id] : 0);
  const scored = raw.map((r) => {
    const id = r.id as number;
    const promoted = p.near ? r.score * (1 + 0.5 * (1 - kmFrom(id) / radiusKm)) : r.score;
    return { id, score: Math.round(promoted * 1000) / 1000 };
  });
  return scored.sort((a, b) => b.score - a.score || popOf(b.id) - popOf(a.id) || a.id - b.id);
}
