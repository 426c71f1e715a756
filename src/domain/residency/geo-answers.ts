import type { Address, AddressResultsDto } from "../../services/geocoding/types";
import type { Coordinates, GeoAnswer } from "./placement";

/**
 * A reverse-geocoding answer for a point: the first result's country and place. An empty result
 * means the point is in no country (the service answers nothing for the open sea).
 */
export function pointAnswerOf(res: AddressResultsDto, point: Coordinates): GeoAnswer {
  const first = res.result?.[0];
  if (!first) return { found: true, coordinates: point };
  return { found: true, coordinates: point, country: countryOf(first), place: placeOf(first) };
}

/** A geocoding answer for an address: the best result's position, country and place; none found is a reason. */
export function addressAnswerOf(res: AddressResultsDto): GeoAnswer {
  const first = res.result?.[0];
  if (!first) return { found: false, reason: res.message ? String(res.message) : "the geocoding service found no match" };
  if (typeof first.lat !== "number" || typeof first.lng !== "number") {
    return { found: false, reason: "the geocoding service's best match has no coordinates" };
  }
  return {
    found: true,
    coordinates: { lat: first.lat, lng: first.lng },
    country: countryOf(first),
    place: placeOf(first),
    level: first.geocodinglevel,
  };
}

/** The spec names it `countrycode`; read `countryCode` too, as real services drift. */
function countryOf(a: Address): string | undefined {
  const v = a.countrycode ?? a.countryCode;
  return typeof v === "string" && /^[A-Za-z]{2}$/.test(v) ? v.toUpperCase() : undefined;
}

function placeOf(a: Address): string | undefined {
  const street = a.streetName ? [a.streetName, a.houseNumber].filter(Boolean).join(" ") : undefined;
  const city = a.city ?? a.citySubdivision ?? a.name;
  const text = [street, city].filter(Boolean).join(", ");
  return text || undefined;
}
