import type { EmulatorRequest } from "../../kit/emulator-app";
import { pageWindow, type PageWindow } from "./paging";

/** A request the spec answers with 412: a required parameter missing, or one that cannot be read. */
export class ParameterError extends Error {}

/** A required text parameter, trimmed. */
export function textParam(req: EmulatorRequest, name: string): string {
  const v = req.query.get(name)?.trim();
  if (!v) throw new ParameterError(`Missing parameter: ${name} is required`);
  return v;
}

/** A number parameter within bounds; undefined when absent and not required. */
export function numberParam(
  req: EmulatorRequest,
  name: string,
  opts: { required?: boolean; min: number; max: number },
): number | undefined {
  const raw = req.query.get(name)?.trim();
  if (!raw) {
    if (opts.required) throw new ParameterError(`Missing parameter: ${name} is required`);
    return undefined;
  }
  const n = Number(raw);
  if (!Number.isFinite(n) || n < opts.min || n > opts.max) {
    throw new ParameterError(`${name} must be a number between ${opts.min} and ${opts.max}, got "${raw}"`);
  }
  return n;
}

/** The required `lat` and `lng` of a point. */
export function pointParams(req: EmulatorRequest): { lat: number; lng: number } {
  const lat = numberParam(req, "lat", { required: true, min: -90, max: 90 })!;
  const lng = numberParam(req, "lng", { required: true, min: -180, max: 180 })!;
  return { lat, lng };
}

/** The spec: "distance ... in meters ... a number > 0 if it is not specified or incorrect" (default 10 000). */
export function radiusParam(req: EmulatorRequest): number {
  const n = Number(req.query.get("radius"));
  return Number.isFinite(n) && n > 0 ? n : 10_000;
}

/** An optional ISO 3166 alpha-2 `country`, upper-cased. */
export function countryParam(req: EmulatorRequest): string | undefined {
  const raw = req.query.get("country")?.trim();
  if (!raw) return undefined;
  if (!/^[A-Za-z]{2}$/.test(raw)) throw new ParameterError(`country must be an ISO 3166 alpha-2 code, got "${raw}"`);
  return raw.toUpperCase();
}

/** An optional text parameter, trimmed; blank is absent. */
export function optionalTextParam(req: EmulatorRequest, name: string): string | undefined {
  return req.query.get(name)?.trim() || undefined;
}

/** The spec's booleans: `true` or `on` (a checked form box) is true, `false` or `off` false. */
export function booleanParam(req: EmulatorRequest, name: string, fallback: boolean): boolean {
  const raw = req.query.get(name);
  if (raw === null || raw.trim() === "") return fallback;
  return truthy(raw);
}

/** Whether a flag's value says yes (`true`, `on`, `1`, `yes`). */
export function truthy(v: string | null): boolean {
  return v !== null && /^(true|on|1|yes)$/i.test(v.trim());
}

/** The page the request asks for (`from`, `to`). */
export function pageParams(req: EmulatorRequest): PageWindow {
  return pageWindow(req.query.get("from"), req.query.get("to"));
}
