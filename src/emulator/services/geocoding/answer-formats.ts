import type * as XmlBuilder from "xmlbuilder2";
import type { EmulatorReply } from "../../kit/emulator-app";

/**
 * The output formats the Gisgraphy spec enumerates for `format`, and what the emulator does with
 * each. Served: JSON (with `callback`), XML (the spec's default) and YAML. Refused with 501
 * `NotImplemented`, naming the served ones: PHP, RUBY and PYTHON (serialized objects of those
 * languages), ATOM and GEORSS (feeds, fulltext only). An unknown value is a 400. Never 412, which
 * the spec keeps for a missing parameter. Without `format` the emulator answers JSON (what
 * stackwarden's client always asks for); ask for `format=XML` to get the spec's default.
 */
export const SERVED_FORMATS = ["JSON", "XML", "YAML"] as const;
export const REFUSED_FORMATS = ["PHP", "RUBY", "PYTHON", "ATOM", "GEORSS"] as const;

export type AnswerFormat = (typeof SERVED_FORMATS)[number];

/** The format a request asks for (case-insensitive), or the reply that refuses it. */
export function answerFormatOf(raw: string | null): AnswerFormat | EmulatorReply {
  const asked = raw?.trim().toUpperCase();
  if (!asked) return "JSON";
  if ((SERVED_FORMATS as readonly string[]).includes(asked)) return asked as AnswerFormat;
  const served = SERVED_FORMATS.join(", ");
  if ((REFUSED_FORMATS as readonly string[]).includes(asked)) {
    return { status: 501, body: { error: `format ${asked} is not served by the emulator; it serves ${served}`, code: "NotImplemented" } };
  }
  return {
    status: 400,
    body: { error: `format "${raw}" is not one of the spec's formats; the emulator serves ${served}`, code: "BadFormat" },
  };
}

/**
 * A 200 answer in the format asked for. JSON as is (wrapped in `callback(...)` when given, as the
 * spec says of script formats); YAML; XML as Gisgraphy's JAXB answers are shaped: a `results` root,
 * each field an element, each list item an element named after its list (`<result>` …), absent
 * fields left out. `indent` pretty-prints.
 */
export function formattedAnswer(body: object, format: AnswerFormat, opts: { indent: boolean; callback?: string }): EmulatorReply {
  if (format === "XML") {
    return { status: 200, headers: { "content-type": "application/xml; charset=utf-8" }, body: toXml(body, opts.indent) };
  }
  if (format === "YAML") {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when a YAML answer is asked for
    const { stringify } = require("yaml") as typeof import("yaml");
    return { status: 200, headers: { "content-type": "application/yaml; charset=utf-8" }, body: stringify(body) };
  }
  const json = JSON.stringify(body, null, opts.indent ? 2 : undefined);
  if (opts.callback)
    return { status: 200, headers: { "content-type": "application/javascript; charset=utf-8" }, body: `${opts.callback}(${json});` };
  return { status: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: json };
}

let xmlbuilder: typeof XmlBuilder | undefined;

function toXml(body: object, indent: boolean): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred until an XML answer is asked for
  xmlbuilder ??= require("xmlbuilder2") as typeof XmlBuilder;
  const doc = xmlbuilder.create({ version: "1.0", encoding: "UTF-8" });
  const root = doc.ele("results");
  appendFields(root, body);
  return doc.end({ prettyPrint: indent });
}

type XmlNode = ReturnType<ReturnType<typeof XmlBuilder.create>["ele"]>;

function appendFields(parent: XmlNode, value: object): void {
  for (const [key, v] of Object.entries(value)) appendValue(parent, elementName(key), v);
}

function appendValue(parent: XmlNode, name: string, v: unknown): void {
  if (v === undefined || v === null) return;
  if (Array.isArray(v)) {
    for (const item of v) appendValue(parent, name, item);
    return;
  }
  const el = parent.ele(name);
  if (typeof v === "object") appendFields(el, v);
  else el.txt(String(v));
}

/** A JSON key as an XML element name: characters an XML name cannot hold become `_`. */
function elementName(key: string): string {
  const name = key.replace(/[^A-Za-z0-9_.-]/g, "_");
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`;
}
