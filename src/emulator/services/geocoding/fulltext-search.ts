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
  const { places, streets, textKeys, byName } = idx;
  const n = places.count;
  const nk = textKeys.length;
  const radiusKm = p.near ? p.near.radiusM / 1000 : 0;
  const kmFrom = (lng: number, lat: number) => distance(p.near!.lng, p.near!.lat, lng, lat);
  const raw = idx.text.search(p.q, {
    combineWith: p.allWords ? "AND" : "OR",
    prefix: p.suggest ? (_term: string, i: number, terms: string[]) => i === terms.length - 1 : false,
    fuzzy: false,
  });
  const out: { id: number; score: number; population: number }[] = [];
  const keep = (country: string, lng: number, lat: number, score: number, boost: number, id: number, population: number) => {
    if (p.country && country !== p.country) return;
    let s = score * boost;
    if (p.near) {
      const km = kmFrom(lng, lat);
      if (km > radiusKm) return;
      s *= 1 + 0.5 * (1 - km / radiusKm);
    }
    out.push({ id, score: Math.round(s * 1000) / 1000, population });
  };
  for (const r of raw) {
    const doc = r.id as number;
    if (doc < nk) {
      // A name key stands for every place of that name; bigger places score higher.
      for (const id of byName.get(textKeys[doc]) ?? []) {
        keep(
          places.country[id],
          places.lng[id],
          places.lat[id],
          r.score,
          1 + Math.log10(1 + places.population[id]) / 3,
          id,
          places.population[id],
        );
      }
    } else {
      const st = streets[doc - nk];
      keep(st.countryCode, st.lng, st.lat, r.score, 1.5, n + doc - nk, 0);
    }
  }
  out.sort((a, b) => b.score - a.score || b.population - a.population || a.id - b.id);
  return out.map(({ id, score }) => ({ id, score }));
}
